import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import type { DeviceTrace } from '../snapshot/model';
import type { Blk, FreeBlocks, Seg } from './blocks';
import type { AllocConfig } from './config';
import { expectedMap, newExpandable } from './expMap';
import type { FinalSegs, PoolsOf } from './pools';
import { bestFit, splitAt } from './rules';
import { blockAt } from './segIndex';
import type { SegIndex } from './segIndex';

// The exact replay's steps that read ahead in the trace or search the segments (replay.ts runs the loop).
const MiB = 2 ** 20;

/**
 * The expandable segment a trace's map at event i grows: one of the pool and kind of the request
 * that follows (else of the dump's memory there) on its stream, the nearest below; else a new one.
 */
export function expandableFor(t: DeviceTrace, i: number, segs: SegIndex, finals: FinalSegs, cfg: AllocConfig): Seg {
  const addr = t.addr[i]!;
  const stream = t.stream[i]!;
  const next = nextAlloc(t, i);
  const small = next >= 0 ? roundSize(t.size[next]!, cfg.rounding) <= MiB : (finals.at(addr)?.small ?? false);
  const pool = finals.poolNear(addr, stream);
  let seg = segs.expandable
    .filter((g) => g.pool === pool && g.small === small && g.stream === stream && g.addr <= addr)
    .sort((x, y) => y.addr - x.addr)[0];
  if (!seg) segs.add((seg = newExpandable(addr, small, stream, pool)));
  return seg;
}

/** Reserved bytes of a segment: an expandable one's mapped blocks. */
export const mappedBytes = (g: Seg) => {
  if (!g.expandable) return g.size;
  let n = 0;
  for (let b = g.head; b; b = b.next) if (b.mapped !== false) n += b.size;
  return n;
};

/** The allocation a run of segment events serves, or -1. */
export function nextAlloc(t: DeviceTrace, i: number): number {
  let j = i + 1;
  while (j < t.length && (t.action[j] === Action.SegmentAlloc || t.action[j] === Action.SegmentMap)) j++;
  return j < t.length && t.action[j] === Action.Alloc && t.stream[j] === t.stream[i] ? j : -1;
}

/**
 * Before a new segment or a map, the rules must have found no cached block for the request that
 * follows, and a map must begin where find_expandable_block would grow: else the index of that
 * request (a mismatch), or -1.
 */
export function checkMiss(t: DeviceTrace, i: number, free: FreeBlocks, segs: SegIndex, pools: PoolsOf, cfg: AllocConfig): number {
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
export function freeAt(segs: SegIndex, free: FreeBlocks, addr: number): Blk | undefined {
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
