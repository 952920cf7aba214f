import { roundingFrom } from '../analysis/rounding';
import type { Rounding } from '../analysis/rounding';
import type { PyValue } from '../pickle/values';

/**
 * The caching allocator's settings that decide where blocks go (`../shared/docs/allocator-and-whatif.md`
 * §4): from a snapshot's `allocator_settings` (2.3+), which records what the run used.
 */
export interface AllocConfig {
  /** Blocks at or above this are not split for smaller requests (Infinity: unset). */
  maxSplitSize: number;
  /** How far an oversize cached block may exceed a request and still serve it whole. */
  maxNonSplitRounding: number;
  rounding: Rounding;
  expandable: boolean;
  gcThreshold: number;
}

const MiB = 2 ** 20;
/** kLargeBuffer: the default oversize tolerance (max_non_split_rounding_mb). */
export const LARGE_BUFFER = 20 * MiB;

export function configFrom(settings: Record<string, PyValue> | null): AllocConfig {
  const num = (k: string) => (typeof settings?.[k] === 'number' ? (settings[k] as number) : undefined);
  const split = num('max_split_size');
  const nonSplit = num('max_non_split_rounding_size');
  return {
    maxSplitSize: split === undefined || split < 0 ? Infinity : split,
    maxNonSplitRounding: nonSplit !== undefined && nonSplit > 0 ? nonSplit : LARGE_BUFFER,
    rounding: roundingFrom(settings),
    expandable: settings?.expandable_segments === true,
    gcThreshold: num('garbage_collection_threshold') ?? 0,
  };
}
