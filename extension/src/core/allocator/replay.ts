import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';
import { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import { configFrom } from './config';
import type { AllocConfig } from './config';
import { allUnmapped, mapRange, unmapRange } from './expMap';
import { FinalSegs, tracePools } from './pools';
import { checkMiss, expandableFor, freeAt, mappedBytes } from './replaySteps';
import { bestFit, release, take } from './rules';
import { seedStart } from './seed';
import { blockAt, SegIndex } from './segIndex';

/**
 * The caching allocator replayed over a snapshot's trace with the settings the run recorded: each
 * allocation is placed by the allocator's rules (best fit by pool, stream, size and address; the
 * oversize rules; splitting; merging on free; a new segment or mapped pages only when no cached
 * block fits, at the lowest address an expandable segment can grow), segments come and go, and
 * pages are mapped and unmapped, where the trace says. Every placement is checked against the
 * address the trace recorded; the block sizes give PyTorch's own "allocated" figure exactly
 * (a block leaves it when the program frees it: free_requested).
 */
export type AllocReplay =
  | {
      supported: true;
      allocations: number;
      /** Allocations the rules placed elsewhere than the trace recorded (first few). */
      mismatches: { index: number; recorded: number; placed: number }[];
      mismatchCount: number;
      /** PyTorch's allocated bytes after each trace event (reserved memory's steps are the analysis replay's). */
      allocated: Float64Array;
      /** Allocated bytes before the first event (blocks live when recording began). */
      start: number;
      allocatedPeak: number;
      reservedPeak: number;
    }
  | { supported: false; reason: string };

const MiB = 2 ** 20;

/** `cfg`: other settings than the recorded ones (the placements then differ from the trace's). */
export function replayAllocator(s: Snapshot, device: number, cfg: AllocConfig = configFrom(s.allocatorSettings)): AllocReplay {
  const t = traceOf(s, device);
  if (!t.length) return { supported: false, reason: 'the snapshot has no trace to replay' };
  const finals = new FinalSegs(s, device);
  const free = new FreeBlocks();
  const live = new Map<number, Blk>();
  const segs = new SegIndex();
  const seed = seedStart(s, t, device, cfg, free, live, finals);
  const pools = tracePools(t, finals);
  for (const g of seed.segs) segs.add(g);
  let now = seed.bytes;
  let peak = now;
  let reserved = seed.segs.reduce((x, g) => x + mappedBytes(g), 0);
  let reservedPeak = reserved;
  const allocated = new Float64Array(t.length);
  const mismatches: { index: number; recorded: number; placed: number }[] = [];
  let mismatchCount = 0;
  let allocations = 0;
  const requested = new Set<Blk>();
  // The first segment or map since the last allocation, and an allocation the rules would have served otherwise.
  let pendingAt: number | undefined;
  let missAt = -1;
  const fail = (i: number, what: string): AllocReplay => ({ supported: false, reason: `event #${i}: ${what}` });
  for (let i = 0; i < t.length; i++) {
    const act = t.action[i]!;
    const addr = t.addr[i]!;
    const stream = t.stream[i]!;
    const size = t.size[i]!;
    if (act === Action.SegmentAlloc || act === Action.SegmentMap) {
      if (pendingAt === undefined) {
        pendingAt = addr;
        missAt = checkMiss(t, i, free, segs, pools, cfg);
      }
      if (act === Action.SegmentAlloc) {
        const seg: Seg = { addr, size, stream, small: size === 2 * MiB, pool: pools.segment(i), head: null };
        seg.head = { addr, size, seg, prev: null, next: null, free: true };
        segs.add(seg);
        free.insert(seg.head);
      } else {
        const why = mapRange(free, expandableFor(t, i, segs, finals, cfg), addr, size);
        if (why) return fail(i, why);
      }
      reserved += size;
      reservedPeak = Math.max(reservedPeak, reserved);
    } else if (act === Action.SegmentFree) {
      pendingAt = undefined;
      const seg = segs.startingAt(addr);
      const b = seg?.head;
      if (!seg || !b || !b.free || b.size !== seg.size) return fail(i, `segment ${addr} freed while the replay holds blocks in it`);
      free.remove(b);
      segs.remove(seg);
      reserved -= seg.size;
    } else if (act === Action.SegmentUnmap) {
      pendingAt = undefined;
      const seg = segs.at(addr);
      const why = seg?.expandable ? unmapRange(free, seg, addr, size) : `an unmap of ${addr} outside every expandable segment`;
      if (why) return fail(i, why);
      if (allUnmapped(seg!)) segs.remove(seg!);
      reserved -= size;
    } else if (act === Action.Alloc) {
      allocations++;
      const rounded = roundSize(size, cfg.rounding);
      let b: Blk | undefined;
      if (pendingAt !== undefined) {
        // alloc_block's own block: the new segment, or the mapped pages merged with their free neighbours.
        const g = segs.at(pendingAt);
        b = g && blockAt(g, pendingAt);
        pendingAt = undefined;
      } else b = bestFit(free, rounded <= MiB, stream, rounded, cfg, segs.at(addr)?.pool ?? 0);
      if (!b || !b.free || b.mapped === false || b.addr !== addr || missAt === i) {
        mismatchCount++;
        if (mismatches.length < 20) mismatches.push({ index: i, recorded: addr, placed: b?.addr ?? -1 });
        // Follow the trace to keep checking what comes after: the free block holding that address.
        b = freeAt(segs, free, addr);
        if (!b) return fail(i, `no free block at ${addr} for an allocation`);
      }
      take(free, b, rounded, cfg);
      live.set(b.addr, b);
      now += b.size;
      peak = Math.max(peak, now);
    } else if (act === Action.FreeRequested) {
      // PyTorch counts a block out of "allocated" when the program frees it, though it returns to
      // the pool only when the streams that used it are done (free_completed).
      const b = live.get(addr);
      if (b && !requested.has(b)) {
        requested.add(b);
        now -= b.size;
      }
    } else if (act === Action.FreeCompleted || act === Action.Free) {
      pendingAt = undefined;
      const b = live.get(addr);
      if (!b) return fail(i, `a free of ${addr}, which the replay never allocated`);
      live.delete(addr);
      if (!requested.delete(b)) now -= b.size;
      release(free, b);
    } else if (act === Action.Oom) pendingAt = undefined;
    allocated[i] = now;
  }
  return {
    supported: true,
    allocations,
    mismatches,
    mismatchCount,
    allocated,
    start: seed.bytes,
    allocatedPeak: peak,
    reservedPeak,
  };
}
