import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';
import { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import type { AllocConfig } from './config';
import { bestFit, release, take } from './replay';
import { ExpandableSegments } from './exp';
import { seedStart } from './seed';

/**
 * The same requests under other allocator settings: the model places every block and carves every
 * segment itself (its own addresses), gives memory back as the allocator does when a cudaMalloc
 * would pass the limit (release_available_cached_blocks, then release_cached_blocks), and calls
 * an OOM where even that leaves no room. It replays the recorded order of requests and frees: it
 * cannot know memory outside PyTorch beyond the limit it is given, nor how frees on other streams
 * would have been timed.
 */
export type Prediction =
  | {
      supported: true;
      reservedPeak: number;
      allocatedPeak: number;
      /** Reserved bytes just after each recorded OOM's request, by its trace index. */
      reservedAt: Map<number, number>;
      /** Requests the model could not serve: trace index, bytes, and whether the run also failed there. */
      ooms: { index: number; bytes: number; recorded: boolean }[];
      /** Recorded OOMs whose request the model served. */
      avoided: number[];
    }
  | { supported: false; reason: string };

const MiB = 2 ** 20;
const roundUp = (x: number, m: number) => Math.ceil(x / m) * m;

/** get_allocation_size: 2 MiB segments for the small pool, 20 MiB for 1–10 MiB, else the request in 2 MiB steps. */
export const segmentSize = (size: number) => (size <= MiB ? 2 * MiB : size < 10 * MiB ? 20 * MiB : roundUp(size, 2 * MiB));

export function predictAllocator(s: Snapshot, device: number, cfg: AllocConfig, limit = Infinity): Prediction {
  if (s.segments.some((g) => g.device === device && (g.poolId[0] !== 0 || g.poolId[1] !== 0))) return { supported: false, reason: 'private pools (CUDA graphs, MemPools) are not predicted yet' };
  const t = traceOf(s, device);
  const free = new FreeBlocks();
  const segs = new Map<number, Seg>();
  // Recorded address → the model's block: the model's own addresses differ from the run's.
  const live = new Map<number, Blk>();
  let now = seedStart(s, t, device, cfg, free, segs, live);
  let reserved = [...segs.values()].reduce((x, g) => x + g.size, 0);
  let next = Math.max(0, ...[...segs.values()].map((g) => g.addr + g.size)) + 2 * MiB;
  let reservedPeak = reserved;
  let allocatedPeak = now;
  const reservedAt = new Map<number, number>();
  const ooms: { index: number; bytes: number; recorded: boolean }[] = [];
  const avoided: number[] = [];
  const drop = (b: Blk) => {
    free.remove(b);
    segs.delete(b.seg.addr);
    reserved -= b.seg.size;
  };
  // Expandable segments: one per (pool, stream), grown page by page at its top (exp.ts).
  const exp = new ExpandableSegments(free, () => {
    const base = next;
    next += 2 ** 40; // a virtual range of its own
    return base;
  });
  // release_cached_blocks: every free block that is a whole segment goes back to the driver; the
  // free pages at the top of expandable segments are unmapped.
  const releaseAll = () => {
    for (const g of [...segs.values()]) if (g.head && g.head.free && !g.head.next) drop(g.head);
    reserved -= exp.unmapFree();
  };
  // release_available_cached_blocks: with max_split_size set, oversize cached segments on this stream.
  const releaseOversize = (size: number, stream: number): boolean => {
    if (cfg.maxSplitSize === Infinity) return false;
    const key = Math.max(size, cfg.maxSplitSize);
    const whole = [...segs.values()].filter((g) => !g.small && g.stream === stream && g.head?.free && !g.head.next && g.size >= cfg.maxSplitSize).sort((a, b) => a.size - b.size);
    const one = whole.find((g) => g.size >= key);
    if (one) return drop(one.head!), true;
    let got = 0;
    for (const g of whole.reverse()) {
      if (got >= key) break;
      drop(g.head!);
      got += g.size;
    }
    return got >= key;
  };
  const attempt = (orig: number, stream: number): Blk | undefined => {
    const size = roundSize(orig, cfg.rounding);
    const small = size <= MiB;
    let b = cfg.expandable ? undefined : bestFit(free, small, stream, size, cfg);
    if (cfg.expandable) {
      let pick = exp.pick(small, stream, size);
      if (reserved + exp.cost(small, stream, size, pick) > limit) {
        releaseAll();
        pick = exp.pick(small, stream, size);
      }
      const want = exp.cost(small, stream, size, pick);
      if (reserved + want > limit) return undefined;
      b = exp.place_(small, stream, size, pick);
      reserved += want;
      reservedPeak = Math.max(reservedPeak, reserved);
    } else if (!b) {
      const want = segmentSize(size);
      const fits = () => reserved + want <= limit;
      if (!fits() && !(releaseOversize(size, stream) && fits())) releaseAll();
      if (!fits()) return undefined;
      const seg: Seg = { addr: next, size: want, stream, small, head: null };
      next += roundUp(want, 2 * MiB);
      b = seg.head = { addr: seg.addr, size: want, seg, prev: null, next: null, free: true };
      segs.set(seg.addr, seg);
      free.insert(b);
      reserved += want;
      reservedPeak = Math.max(reservedPeak, reserved);
    }
    take(free, b, size, cfg);
    now += b.size;
    allocatedPeak = Math.max(allocatedPeak, now);
    return b;
  };
  let lastFreedSegment = -2;
  for (let i = 0; i < t.length; i++) {
    const act = t.action[i]!;
    if (act === Action.Alloc) {
      const b = attempt(t.size[i]!, t.stream[i]!);
      if (b) live.set(t.addr[i]!, b);
      else ooms.push({ index: i, bytes: t.size[i]!, recorded: false });
    } else if (act === Action.Oom) {
      // The request the run could not serve: served here, it is given back at once (what the
      // program did next with it is not in the trace).
      const b = attempt(t.size[i]!, t.stream[i]!);
      if (b) {
        avoided.push(i);
        now -= b.size;
        release(free, b);
      } else ooms.push({ index: i, bytes: t.size[i]!, recorded: true });
      reservedAt.set(i, reserved);
    } else if (act === Action.FreeCompleted || act === Action.Free) {
      const b = live.get(t.addr[i]!);
      if (!b) continue; // its allocation failed here
      live.delete(t.addr[i]!);
      now -= b.size;
      release(free, b);
    } else if (act === Action.SegmentFree) {
      // The run gave memory back (empty_cache, or its own OOM retry): the model does the same once.
      if (lastFreedSegment !== i - 1) releaseAll();
      lastFreedSegment = i;
    }
  }
  return { supported: true, reservedPeak, allocatedPeak, reservedAt, ooms, avoided };
}
