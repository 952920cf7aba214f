import { replayAllocator } from '../allocator/replay';
import type { Snapshot } from '../snapshot/model';

/**
 * PyTorch's own "allocated" bytes after each event, from the caching allocator's replay when every
 * placement matched the trace (block sizes then are the allocator's, splits and unsplit remainders
 * included). Otherwise (no trace, a placement the rules do not explain) the figures stay the
 * replay's estimate of rounded sizes, and `why` says so: never a silent guess.
 */
export interface ExactAllocated {
  exact: true;
  series: Float64Array;
  start: number;
  peak: number;
}

export function exactAllocated(s: Snapshot, device: number): ExactAllocated | { exact: false; why: string } {
  const r = replayAllocator(s, device);
  if (!r.supported) return { exact: false, why: r.reason };
  if (r.mismatchCount > 0)
    return {
      exact: false,
      why: `the allocator replay placed ${r.mismatchCount} of ${r.allocations} allocations elsewhere than the trace (event #${r.mismatches[0]!.index} first)`,
    };
  return { exact: true, series: r.allocated, start: r.start, peak: r.allocatedPeak };
}

/** Allocated bytes just after event `index` (-1: before the first). */
export const allocatedAfter = (a: ExactAllocated, index: number): number => (index < 0 ? a.start : a.series[index]!);
