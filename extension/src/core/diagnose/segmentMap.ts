import type { SegmentMapRow } from '../protocol';
import type { AllocatorState, SegBlockState } from '../timeline/segments';

/** Enough for the OOM page; the timeline's segments view has every segment and block. */
const MAX_SEGMENTS = 48;
const MAX_RUNS = 400;

/**
 * The segment map of the OOM report: the biggest segments first, adjacent blocks of one state
 * joined (two free neighbours are one hole to a request only if the allocator merged them, which
 * it does: free blocks never sit side by side in its pools).
 */
export function segmentMap(st: AllocatorState): { rows: SegmentMapRow[]; total: number } {
  const rows = [...st.segments]
    .sort((x, y) => y.size - x.size)
    .slice(0, MAX_SEGMENTS)
    .map((g) => {
      const runs: [SegBlockState, number][] = [];
      for (const b of g.blocks) {
        const last = runs.at(-1);
        if (last && last[0] === b.state) last[1] += b.size;
        else runs.push([b.state, b.size]);
      }
      return {
        pool: g.pool,
        private: g.poolId[0] !== 0 || g.poolId[1] !== 0,
        expandable: g.expandable,
        size: g.size,
        runs: runs.slice(0, MAX_RUNS),
        more: Math.max(0, runs.length - MAX_RUNS),
      };
    });
  return { rows, total: st.segments.length };
}

/** Sizes of the allocated blocks in the segments of a pool that have holes (what cut them up). */
export function blocksBetweenHoles(state: AllocatorState, pool: string): number[] {
  return state.segments
    .filter((g) => g.pool === pool && g.poolId[0] === 0 && g.poolId[1] === 0 && g.blocks.some((b) => b.state === 'free'))
    .flatMap((g) => g.blocks.filter((b) => b.state !== 'free').map((b) => b.size));
}
