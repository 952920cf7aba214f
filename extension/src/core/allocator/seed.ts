import { AddrMap } from '../analysis/addrMap';
import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import type { Blk, FreeBlocks, Seg } from './blocks';
import type { AllocConfig } from './config';
import { VIRTUAL_RANGE } from './expMap';
import { MappedRanges } from './mappedRanges';
import type { FinalSegs } from './pools';

const MiB = 2 ** 20;
const ALLOCATED = /^active_/;
type Range = { lo: number; hi: number; stream: number; small: boolean; pool: number };

/**
 * The allocator as it was when the trace began, for a recording that started late (Headroom's
 * windows, a wrapped ring buffer): its segments are the final ones less those the trace allocated,
 * plus those it freed; expandable ones are the mapped ranges less those the trace mapped, plus those
 * it unmapped. The blocks live then are those the trace frees without having allocated them (sized
 * by the request's rounding: an unsplit remainder of at most 1 MiB is not known) and those still
 * live at the dump that the trace never allocated (sized exactly by the dump).
 */
export function seedStart(
  s: Snapshot,
  t: DeviceTrace,
  device: number,
  cfg: AllocConfig,
  free: FreeBlocks,
  live: Map<number, Blk>,
  finals: FinalSegs,
): { segs: Seg[]; bytes: number } {
  const start = new Map<number, Range>();
  const mapped = new MappedRanges();
  for (const g of finals.segs) {
    const r = { lo: g.addr, hi: g.end, stream: g.stream, small: g.small, pool: g.pool };
    if (g.expandable) mapped.add(r);
    else start.set(g.addr, r);
  }
  // Each address's first alloc in the trace (walking back, the earliest is written last).
  const firstAlloc = new AddrMap();
  for (let i = t.length - 1; i >= 0; i--) {
    const a = t.action[i]!;
    const addr = t.addr[i]!;
    const size = t.size[i]!;
    if (a === Action.SegmentAlloc) start.delete(addr);
    else if (a === Action.SegmentFree)
      start.set(addr, { lo: addr, hi: addr + size, stream: t.stream[i]!, small: size === 2 * MiB, pool: 0 }); // freed before the dump: the default pool (pools.ts)
    else if (a === Action.SegmentMap) mapped.map(addr, size);
    else if (a === Action.SegmentUnmap) mapped.unmap(addr, size, t.stream[i]!);
    else if (a === Action.Alloc) firstAlloc.set(addr, i);
  }
  // Blocks live when the trace began: freed before being allocated in it, or live at the dump and never allocated in it.
  const before = new Map<number, number>();
  for (let i = 0; i < t.length; i++) {
    const a = t.action[i]!;
    if (a !== Action.FreeCompleted && a !== Action.Free) continue;
    const addr = t.addr[i]!;
    const first = firstAlloc.get(addr);
    if ((first < 0 || first > i) && !before.has(addr)) before.set(addr, roundSize(t.size[i]!, cfg.rounding));
  }
  for (const g of s.segments) {
    if (g.device !== device || !(start.has(g.address) || g.expandable)) continue;
    for (const b of g.blocks) if (ALLOCATED.test(b.state) && !firstAlloc.has(b.address)) before.set(b.address, b.size);
  }
  const blocks = [...before].sort((x, y) => x[0] - y[0]);
  const fill = new Filler(blocks, free, live);
  const segs: Seg[] = [];
  for (const r of [...start.values()].sort((x, y) => x.lo - y.lo)) {
    const seg: Seg = { addr: r.lo, size: r.hi - r.lo, stream: r.stream, small: r.small, pool: r.pool, head: null };
    fill.range(seg, r.lo, r.hi);
    segs.push(seg);
  }
  // Expandable: one virtual range per (pool, kind, stream), unmapped between its mapped ranges.
  const groups = new Map<string, Range[]>();
  for (const r of mapped.sorted()) {
    const k = `${r.pool}${r.small}${r.stream}`;
    const rs = groups.get(k);
    const last = rs?.at(-1);
    if (last && last.hi === r.lo) last.hi = r.hi;
    else if (rs) rs.push(r);
    else groups.set(k, [r]);
  }
  for (const rs of groups.values()) {
    const r0 = rs[0]!;
    const seg: Seg = { addr: r0.lo, size: VIRTUAL_RANGE, stream: r0.stream, small: r0.small, pool: r0.pool, expandable: true, head: null };
    for (const r of rs) {
      fill.gap(seg, r.lo);
      fill.range(seg, r.lo, r.hi);
    }
    fill.gap(seg, seg.addr + seg.size);
    segs.push(seg);
  }
  return { segs, bytes: fill.bytes };
}

/** Lays blocks into segments in address order, one walk over the live blocks. */
class Filler {
  bytes = 0;
  private k = 0;
  private prev: Blk | null = null;
  private at = 0;

  constructor(
    private readonly blocks: [number, number][],
    private readonly free: FreeBlocks,
    private readonly live: Map<number, Blk>,
  ) {}

  private add(seg: Seg, addr: number, size: number, isFree: boolean, mapped = true): void {
    const b: Blk = { addr, size, seg, prev: this.prev, next: null, free: isFree, ...(mapped ? {} : { mapped: false }) };
    if (this.prev && this.prev.seg === seg) this.prev.next = b;
    else {
      b.prev = null;
      seg.head = b;
    }
    this.prev = b;
    this.at = addr + size;
    if (!mapped) return;
    if (isFree) this.free.insert(b);
    else {
      this.live.set(addr, b);
      this.bytes += size;
    }
  }

  /** An unmapped range from the last block of `seg` up to `to`. */
  gap(seg: Seg, to: number): void {
    const from = this.prev?.seg === seg ? this.at : seg.addr;
    if (to > from) this.add(seg, from, to - from, true, false);
  }

  /** Mapped memory [lo, hi) of `seg`: the live blocks in it, free between them. */
  range(seg: Seg, lo: number, hi: number): void {
    if (this.prev?.seg !== seg) this.prev = null;
    while (this.k < this.blocks.length && this.blocks[this.k]![0] < lo) this.k++;
    let at = lo;
    for (; this.k < this.blocks.length && this.blocks[this.k]![0] < hi; this.k++) {
      const [addr, size] = this.blocks[this.k]!;
      if (addr < at) continue; // overlapping guesses: the earlier one stands
      if (addr > at) this.add(seg, at, addr - at, true);
      const end = Math.min(addr + size, hi);
      this.add(seg, addr, end - addr, false);
      at = end;
    }
    if (at < hi) this.add(seg, at, hi - at, true);
  }
}
