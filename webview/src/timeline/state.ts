import type { KeyingName } from '../../../extension/src/core/timeline/protocol';
import type { SegFilter } from './segmentsView';

/**
 * What the page remembers across hide/show and reloads (getState/setState): navigation and UI
 * choices only. The data always comes again from the host, which owns it.
 */
export interface UiState {
  tab: 'timeline' | 'segments';
  keying: KeyingName;
  x: 'index' | 'time';
  /** The visible window, for the snapshot it was set on. */
  window: { path: string; device: number; from: number; to: number } | null;
  /** A fixed y ceiling (Ctrl+wheel), or null to fit the visible data. */
  yLock: number | null;
  pinned: number | null;
  seg: SegFilter;
  /** The snapshot shown, so a reloaded window can ask the host for it again. */
  path: string | null;
  device: number | null;
}

export const DEFAULT_STATE: UiState = {
  tab: 'timeline',
  keying: 'category',
  x: 'index',
  window: null,
  yLock: null,
  pinned: null,
  seg: { pool: '', request: '', onlyFree: false },
  path: null,
  device: null,
};
