import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';
import { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import type { AllocConfig } from './config';
import { ExpandableSegments } from './exp';
import { mappedRuns } from './expMap';
import { FinalSegs, tracePools } from './pools';
import { NO_LIMIT, segmentSize } from './limit';
import type { Limit } from './limit';
import { Releaser } from './release';
import { bestFit, release, take } from './rules';
import { seedStart } from './seed';
import { highestEnd } from './segIndex';

const MiB = 2 ** 20;
const roundUp = (x: number, m: number) => Math.ceil(x / m) * m;

/**
 * The same requests under other allocator settings: the model places every block and carves every
 * segment itself (its own addresses), gives memory back as the allocator does when a new segment
 * would pass the limit (garbage collection under a cap, release_available_cached_blocks, then
 * release_cached_blocks), and calls an OOM where even that leaves no room. It replays the recorded
 * order of requests and frees: it cannot know memory outside PyTorch beyond the limit it is given,
 * nor how frees on other streams would have been timed.
 */
export type Prediction =
  | {
      supported: true;
      /** Peaks until the first OOM the run did not have (after it, the run would have raised), else over the whole trace. */
      reservedPeak: number;
      allocatedPeak: number;
      /** Reserved less allocated bytes at the reserved peak: cached memory no request was using. */
      cachedAtPeak: number;
      /** Reserved bytes just after each recorded OOM's request, by its trace index. */
      reservedAt: Map<number, number>;
      /** Requests the model could not serve: trace index, bytes, and whether the run also failed there. */
      ooms: { index: number; bytes: number; recorded: boolean }[];
      /** Recorded OOMs whose request the model served. */
      avoided: number[];
    }
  | { supported: false; reason: string };

/** Another run of the same requests (core/scale): by trace index, the bytes each `alloc` event asks instead (NaN: as recorded); the order the events happen in (default: recorded). */
export interface Reshaped {
  sizes?: Float64Array;
  order?: Int32Array;
}

export function predictAllocator(
  s: Snapshot,
  device: number,
  cfg: AllocConfig,
  limit: Limit = NO_LIMIT,
  { sizes, order }: Reshaped = {},
): Prediction {
  const t = traceOf(s, device);
  const finals = new FinalSegs(s, device);
  const free = new FreeBlocks();
  // Recorded address → the model's block: the model's own addresses differ from the run's.
  const live = new Map<number, Blk>();
  const seed = seedStart(s, t, device, cfg, free, live, finals);
  const pools = tracePools(t, finals);
  let now = seed.bytes;
  let next = highestEnd(seed.segs) + 2 * MiB;
  // Expandable segments: one per (pool, kind, stream), grown page by page at its top (exp.ts).
  const exp = new ExpandableSegments(free, () => {
    const base = next;
    next += 2 ** 40; // a virtual range of its own
    return base;
  });
  const rel = new Releaser(free, exp, cfg, limit);
  for (const g of seed.segs.flatMap((x) => (x.expandable ? mappedRuns(x) : [x]))) rel.adopt(g);
  let reservedPeak = rel.reserved;
  let allocatedPeak = now;
  let cachedAtPeak = rel.reserved - now;
  const reservedAt = new Map<number, number>();
  const ooms: { index: number; bytes: number; recorded: boolean }[] = [];
  const avoided: number[] = [];
  const grew = () => {
    if (rel.reserved > reservedPeak) [reservedPeak, cachedAtPeak] = [rel.reserved, rel.reserved - now];
  };
  const attempt = (orig: number, stream: number, pool: number): Blk | undefined => {
    const size = roundSize(orig, cfg.rounding);
    const small = size <= MiB;
    rel.searched(pool, small);
    let b: Blk | undefined;
    if (cfg.expandable) {
      b = rel.mapExpandable(size, small, stream, pool);
      if (!b) return undefined;
    } else if (!(b = bestFit(free, small, stream, size, cfg, pool))) {
      rel.collect();
      b = rel.grow(size, stream, () => {
        const want = segmentSize(size);
        const seg: Seg = { addr: next, size: want, stream, small, pool, head: null };
        next += roundUp(want, 2 * MiB);
        seg.head = { addr: seg.addr, size: want, seg, prev: null, next: null, free: true };
        return seg;
      });
      if (!b) return undefined;
    }
    take(free, b, size, cfg);
    now += b.size;
    allocatedPeak = Math.max(allocatedPeak, now);
    grew();
    return b;
  };
  let lastFreedSegment = -2;
  let until: { reservedPeak: number; allocatedPeak: number; cachedAtPeak: number } | undefined;
  // Out of "allocated" when freed by the program (free_requested), back in the pool at free_completed.
  const requested = new Set<Blk>();
  for (let j = 0; j < t.length; j++) {
    const i = order ? order[j]! : j;
    const act = t.action[i]!;
    if (act === Action.Alloc) {
      const bytes = sizes && !Number.isNaN(sizes[i]!) ? sizes[i]! : t.size[i]!;
      const b = attempt(bytes, t.stream[i]!, pools.alloc(i));
      if (b) live.set(t.addr[i]!, b);
      else {
        // A failure where the run had none: from here on the run would differ (it raises), so its
        // peaks are those until this point; the replay goes on only to find the later OOMs.
        until ??= { reservedPeak, allocatedPeak, cachedAtPeak };
        ooms.push({ index: i, bytes, recorded: false });
      }
    } else if (act === Action.Oom) {
      // The request the run could not serve: served here, it is given back at once (what the
      // program did next with it is not in the trace).
      const b = attempt(sizes && !Number.isNaN(sizes[i]!) ? sizes[i]! : t.size[i]!, t.stream[i]!, 0);
      if (b) {
        avoided.push(i);
        now -= b.size;
        release(free, b);
      } else ooms.push({ index: i, bytes: t.size[i]!, recorded: true });
      reservedAt.set(i, rel.reserved);
    } else if (act === Action.FreeRequested) {
      const b = live.get(t.addr[i]!);
      if (b && !requested.has(b)) requested.add(b), (now -= b.size);
    } else if (act === Action.FreeCompleted || act === Action.Free) {
      const b = live.get(t.addr[i]!);
      if (!b) continue; // its allocation failed here
      live.delete(t.addr[i]!);
      if (!requested.delete(b)) now -= b.size;
      release(free, b);
    } else if (act === Action.SegmentFree || act === Action.SegmentUnmap) {
      // The run gave memory back (empty_cache, or its own OOM retry): the model does the same once.
      if (lastFreedSegment !== i - 1) rel.releaseAll();
      lastFreedSegment = i;
    }
  }
  return { supported: true, ...(until ?? { reservedPeak, allocatedPeak, cachedAtPeak }), reservedAt, ooms, avoided };
}
