import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { Marker } from './markers';

// The timeline model's shape apart from buildTimeline (model.ts), which imports the modules that read it.

export type KeyingName = 'line' | 'category' | 'module';

export interface KeyInfo {
  label: string;
  /** Source line of a line key (the innermost user frame), absent for buckets and categories. */
  file?: string;
  line?: number;
}

/** A way of grouping blocks into stacked bands, with checkpoints of each group's live bytes. */
export interface Keying {
  /** Per element: its key. */
  key: Int32Array;
  keys: KeyInfo[];
  /** Keys bottom to top. */
  order: Int32Array;
  /** Checkpoint j is the state before event j·every: bytes and block counts per key. */
  every: number;
  bytes: Float64Array;
  counts: Int32Array;
}

/** One device's trace, indexed for the timeline: what changes at each event, and by group. */
export interface TimelineModel {
  device: number;
  n: number;
  analysis: DeviceAnalysis;
  /** Events' element changes (CSR): evItem holds k+1 for an alloc of element k, -(k+1) for its free. */
  evOff: Int32Array;
  evItem: Int32Array;
  /** Elements alive before the first event. */
  startLive: Int32Array;
  category: Uint8Array;
  keyings: Record<KeyingName, Keying>;
  /** Estimated allocated bytes after each event (rounded sizes). */
  allocated: Float64Array;
  markers: Marker[];
  /** Whether every event has a time (torch ≥ 2.2): the x axis can be time. */
  hasTime: boolean;
}
