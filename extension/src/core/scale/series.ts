import type { Elements } from '../analysis/replay';

/** The requested bytes of one allocation in the predicted run (its recorded bytes, scaled or not). */
export type SizeOf = (k: number) => number;

export interface PeakAt {
  /** Requested bytes live at the predicted peak (PyTorch's requested_bytes.all.peak). */
  bytes: number;
  /** Trace index after which it holds (-1: before the first event). */
  index: number;
}

/**
 * The requested-bytes peak of the recorded trace with each allocation's size replaced: the replay's
 * own accounting (in at its alloc, out at its free_completed; live before the trace from the start),
 * so the identity gives the recorded peak to the byte. `moved`: allocations made later (after the
 * trace index given), as a checkpointed run recomputes them.
 */
export function requestedPeakWith(e: Elements, n: number, sizeOf: SizeOf, moved?: ReadonlyMap<number, number>): PeakAt {
  const delta = new Float64Array(n);
  let q = 0;
  for (let k = 0; k < e.count; k++) {
    const s = sizeOf(k);
    const a = moved?.get(k) ?? e.alloc[k]!;
    const f = e.free[k]!;
    if (a < 0) q += s;
    else delta[a] = delta[a]! + s;
    if (f < n) delta[f] = delta[f]! - s;
  }
  let best: PeakAt = { bytes: q, index: -1 };
  for (let i = 0; i < n; i++) {
    q += delta[i]!;
    if (q > best.bytes) best = { bytes: q, index: i };
  }
  return best;
}

/**
 * The predicted size of each `alloc` event by trace index (NaN elsewhere): what the allocator model
 * is asked for in place of the recorded bytes.
 */
export function allocSizes(e: Elements, n: number, sizeOf: SizeOf): Float64Array {
  const out = new Float64Array(n).fill(NaN);
  for (let k = 0; k < e.count; k++) if (e.alloc[k]! >= 0) out[e.alloc[k]!] = sizeOf(k);
  return out;
}
