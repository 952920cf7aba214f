import type { Sample } from './protocol';
import type { ProcessRun } from './runFolder';

// Where the ranks stood when one of them ran out of memory (ranks.ts's summary).

/** One rank ran out of memory; where the others stood at that moment (their last sample before it). */
export interface RankOom {
  rank: number;
  timeUs: number;
  others: { rank: number; ageUs: number; allocated: number; reserved: number; outsidePytorch: number | null }[];
}

export const outside = (s: Sample | undefined): number | null =>
  s && typeof s.device_used === 'number' ? Math.max(0, s.device_used - s.reserved) : null;

/** The first OOM of any rank, and each other rank's last sample at or before it. */
export function oomAcrossRanks(ranks: readonly (ProcessRun & { rank: number })[]): RankOom | null {
  let first: { rank: number; t: number } | undefined;
  for (const p of ranks) for (const e of p.events) if (e.event === 'oom' && (!first || e.t < first.t)) first = { rank: p.rank, t: e.t };
  if (!first) return null;
  const at = first;
  const others = ranks
    .filter((p) => p.rank !== at.rank)
    .flatMap((p) => {
      let s: Sample | undefined;
      for (const x of p.samples) if (x.t <= at.t && (!s || x.t > s.t)) s = x;
      return s ? [{ rank: p.rank, ageUs: at.t - s.t, allocated: s.allocated, reserved: s.reserved, outsidePytorch: outside(s) }] : [];
    });
  return { rank: at.rank, timeUs: at.t, others };
}
