import type { LodFrame, LodRequest } from './lod';
import type { Marker } from './markers';
import type { KeyInfo, KeyingName } from './modelTypes';
import type { PoolSummary, SegState } from './segments';

/**
 * The timeline channel: the host and the timeline webview import these types (the webview imports
 * nothing else from the extension). Each message from the webview names the `session` it was made
 * for, so answers about a snapshot that has since been replaced are dropped on both sides.
 */

export interface TimelineInit {
  type: 'init';
  session: number;
  title: string;
  path: string;
  device: number;
  devices: number[];
  n: number;
  hasTime: boolean;
  /** First and last event times (µs since the epoch) when hasTime. */
  timeRange: [number, number] | null;
  keys: Record<KeyingName, KeyInfo[]>;
  categoryRules: readonly string[];
  markers: Marker[];
  peak: { index: number; bytes: number };
  /** The instant the editor's decorations show. */
  instant: { index: number; label: string; timeUs: number | null };
  /** The whole trace at low resolution (bands merged), for the minimap and the first paint. */
  overview: LodFrame;
  /** y-axis ceiling: the highest reserved or requested figure of the trace. */
  maxBytes: number;
}

export interface StackFrameInfo {
  file: string;
  line: number;
  name: string;
  /** User code (vs library or C++). */
  user: boolean;
}

export interface ElementInfo {
  id: number;
  size: number;
  /** Block bytes (rounded): exact for blocks alive at the dump, estimated otherwise. */
  rounded: number;
  address: number;
  stream: number;
  /** -1 for blocks allocated before recording. */
  alloc: number;
  /** n while still alive at the end. */
  free: number;
  aliveAtEnd: boolean;
  allocTimeUs: number | null;
  freeTimeUs: number | null;
  origin: 'trace' | 'unmatched free' | 'ghost';
  category: string;
  key: string;
  /** The module whose forward or backward allocated it (`transformer.h.3.attn`), when recorded. */
  module: string | null;
  stack: StackFrameInfo[];
}

export interface LiveSample {
  /** µs since the epoch. */
  t: number;
  allocated: number;
  reserved: number;
  requested: number;
  deviceUsed: number | null;
  /** Device memory this process holds, from the driver (NVML or nvidia-smi); null where unknown. */
  processUsed: number | null;
}

export interface LiveMarker {
  t: number;
  kind: 'snapshot' | 'oom' | 'backward' | 'exit' | 'window';
  label: string;
}

export type ToTimeline =
  | TimelineInit
  | { type: 'frame'; session: number; seq: number; request: LodRequest; frame: LodFrame }
  | { type: 'element'; session: number; info: ElementInfo }
  | { type: 'instant'; session: number; index: number; label: string; timeUs: number | null }
  | { type: 'segments'; session: number; index: number; segments: SegState[]; pools: PoolSummary[]; orphans: number }
  | { type: 'live'; session: number; title: string; reset: boolean; samples: LiveSample[]; markers: LiveMarker[]; running: boolean }
  | { type: 'empty'; message: string };

export type FromTimeline =
  | { type: 'ready' }
  | { type: 'view'; session: number; seq: number; request: LodRequest }
  | { type: 'element'; session: number; id: number }
  | { type: 'openFrame'; file: string; line: number }
  | { type: 'setInstant'; session: number; index: number }
  | { type: 'segments'; session: number; index: number }
  | { type: 'selectDevice' }
  /** The flame graph at the instant the page shows (`session` -1 while live: the editors' instant). */
  | { type: 'showFlame'; session: number; index: number };

/**
 * Messages cross as JSON (Infinity would arrive as null): a request that merges every band (an
 * overview) asks for bands of at least MERGE_ALL bytes, larger than any block.
 */
export const MERGE_ALL = Number.MAX_VALUE;

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const int = (v: unknown): v is number => num(v) && Number.isInteger(v);

function isRequest(r: unknown): r is LodRequest {
  if (typeof r !== 'object' || r === null) return false;
  const q = r as Record<string, unknown>;
  return (
    (q.keying === 'line' || q.keying === 'category' || q.keying === 'module') &&
    (q.x === 'index' || q.x === 'time') &&
    num(q.from) &&
    num(q.to) &&
    q.to > q.from &&
    int(q.columns) &&
    q.columns > 0 &&
    num(q.minBandBytes) &&
    q.minBandBytes > 0
  );
}

/** Validates a message from the timeline webview; false for anything malformed. */
export function isFromTimeline(m: unknown): m is FromTimeline {
  if (typeof m !== 'object' || m === null) return false;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
    case 'selectDevice':
      return true;
    case 'view':
      return int(o.session) && int(o.seq) && isRequest(o.request);
    case 'element':
      return int(o.session) && int(o.id) && o.id >= 0;
    case 'openFrame':
      return typeof o.file === 'string' && int(o.line);
    case 'setInstant':
    case 'segments':
    case 'showFlame':
      return int(o.session) && int(o.index) && o.index >= -1;
    default:
      return false;
  }
}

// The payload types the channel carries, for the webview (which imports only this file's types).
export type { LodFrame, LodRequest } from './lod';
export type { Marker, MarkerKind } from './markers';
export type { KeyInfo, KeyingName } from './modelTypes';
export type { PoolSummary, SegBlock, SegState } from './segments';
