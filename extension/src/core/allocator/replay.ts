import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import { configFrom } from './config';
import type { AllocConfig } from './config';
import { allUnmapped, expectedMap, mapRange, newExpandable, unmapRange } from './expMap';
import { FinalSegs, tracePools } from './pools';
import type { PoolsOf } from './pools';
import { bestFit, release, splitAt, take } from './rules';
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
      /** PyTorch's allocated and reserved bytes after each trace event, and their peaks. */
      allocated: Float64Array;
      reserved: Float64Array;
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
  const reservedAt = new Float64Array(t.length);
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
        // The pool and kind the map serves: those of the request that follows, else of the dump's memory there.
        const next = nextAlloc(t, i);
        const small = next >= 0 ? roundSize(t.size[next]!, cfg.rounding) <= MiB : (finals.at(addr)?.small ?? false);
        const pool = finals.poolAt(addr);
        let seg = segs.expandable.filter((g) => g.pool === pool && g.small === small && g.stream === stream && g.addr <= addr).sort((x, y) => y.addr - x.addr)[0];
        if (!seg) segs.add((seg = newExpandable(addr, small, stream, pool)));
        const why = mapRange(free, seg, addr, size);
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
    reservedAt[i] = reserved;
  }
  return { supported: true, allocations, mismatches, mismatchCount, allocated, reserved: reservedAt, start: seed.bytes, allocatedPeak: peak, reservedPeak };
}

const mappedBytes = (g: Seg) => {
  if (!g.expandable) return g.size;
  let n = 0;
  for (let b = g.head; b; b = b.next) if (b.mapped !== false) n += b.size;
  return n;
};

/** The allocation a run of segment events serves, or -1. */
function nextAlloc(t: DeviceTrace, i: number): number {
  let j = i + 1;
  while (j < t.length && (t.action[j] === Action.SegmentAlloc || t.action[j] === Action.SegmentMap)) j++;
  return j < t.length && t.action[j] === Action.Alloc && t.stream[j] === t.stream[i] ? j : -1;
}

/**
 * Before a new segment or a map, the rules must have found no cached block for the request that
 * follows, and a map must begin where find_expandable_block would grow: else the index of that
 * request (a mismatch), or -1.
 */
function checkMiss(t: DeviceTrace, i: number, free: FreeBlocks, segs: SegIndex, pools: PoolsOf, cfg: AllocConfig): number {
  const j = nextAlloc(t, i);
  if (j < 0) return -1;
  const size = roundSize(t.size[j]!, cfg.rounding);
  const small = size <= MiB;
  const pool = pools.alloc(j);
  if (bestFit(free, small, t.stream[j]!, size, cfg, pool)) return j;
  if (t.action[i] !== Action.SegmentMap) return -1;
  const mine = segs.expandable.filter((g) => g.pool === pool && g.small === small && g.stream === t.stream[j]!);
  const at = expectedMap(mine, size);
  const inside = mine.some((g) => g === segs.at(t.addr[i]!));
  return at === t.addr[i]! || (at === undefined && !inside) ? -1 : j;
}

/**
 * The free block starting at `addr`, carved out of the free block that holds it: where the rules
 * placed an allocation elsewhere, the replay follows the trace to go on checking what comes after.
 */
function freeAt(segs: SegIndex, free: FreeBlocks, addr: number): Blk | undefined {
  const g = segs.at(addr);
  const b = g && blockAt(g, addr);
  if (!b || !b.free || b.mapped === false) return undefined;
  if (b.addr === addr) return b;
  free.remove(b);
  const tail = splitAt(b, addr);
  free.insert(b);
  free.insert(tail);
  return tail;
}
