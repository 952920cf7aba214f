import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import type { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import type { AllocConfig } from './config';

const MiB = 2 ** 20;
const ALLOCATED = /^active_/;

/**
 * The allocator as it was when the trace began, for a recording that started late (Headroom's
 * windows, a wrapped ring buffer): its segments are the final ones less those the trace allocated,
 * plus those it freed; the blocks live then are those the trace frees without having allocated
 * them (sized by the request's rounding: an unsplit remainder of at most 1 MiB is not known) and
 * those still live at the dump that the trace never allocated (sized exactly by the dump).
 * Returns the bytes allocated at the start.
 */
export function seedStart(s: Snapshot, t: DeviceTrace, device: number, cfg: AllocConfig, free: FreeBlocks, segs: Map<number, Seg>, live: Map<number, Blk>): number {
  const start = new Map<number, Seg>();
  // Expandable segments: the mapped ranges, less those the trace mapped, plus those it unmapped.
  let mapped: [number, number, number, boolean][] = [];
  for (const g of s.segments) {
    if (g.device !== device) continue;
    if (g.expandable) mapped.push([g.address, g.address + g.totalSize, g.stream, g.type === 'small']);
    else start.set(g.address, { addr: g.address, size: g.totalSize, stream: g.stream, small: g.type === 'small', head: null });
  }
  const allocatedAt = new Set<number>();
  for (let i = t.length - 1; i >= 0; i--) {
    const a = t.action[i]!;
    const addr = t.addr[i]!;
    if (a === Action.SegmentAlloc) start.delete(addr);
    else if (a === Action.SegmentFree) start.set(addr, { addr, size: t.size[i]!, stream: t.stream[i]!, small: t.size[i]! === 2 * MiB, head: null });
    else if (a === Action.SegmentMap) mapped = mapped.flatMap(([lo, hi, st, sm]) => [[lo, Math.min(hi, addr), st, sm], [Math.max(lo, addr + t.size[i]!), hi, st, sm]] as [number, number, number, boolean][]).filter(([lo, hi]) => hi > lo);
    else if (a === Action.SegmentUnmap) mapped.push([addr, addr + t.size[i]!, t.stream[i]!, mapped.find(([, , st]) => st === t.stream[i]!)?.[3] ?? false]);
    else if (a === Action.Alloc) allocatedAt.add(addr);
  }
  mapped.sort((x, y) => x[0] - y[0]);
  for (const [lo, hi, stream, small] of mapped) {
    const last = [...start.values()].find((g) => g.addr + g.size === lo && g.stream === stream);
    if (last) last.size = hi - last.addr;
    else start.set(lo, { addr: lo, size: hi - lo, stream, small, head: null });
  }
  // Blocks live when the trace began: freed before being allocated in it, or live at the dump and never allocated in it.
  const before = new Map<number, number>();
  const seen = new Set<number>();
  for (let i = 0; i < t.length; i++) {
    const a = t.action[i]!;
    const addr = t.addr[i]!;
    if (a === Action.Alloc) seen.add(addr);
    else if ((a === Action.FreeCompleted || a === Action.Free) && !seen.has(addr) && !before.has(addr)) before.set(addr, roundSize(t.size[i]!, cfg.rounding));
  }
  for (const g of s.segments) {
    if (g.device !== device || !start.has(g.address)) continue;
    for (const b of g.blocks) if (ALLOCATED.test(b.state) && !allocatedAt.has(b.address)) before.set(b.address, b.size);
  }
  let bytes = 0;
  // Blocks and segments both by address: one walk places each block in its segment.
  const blocks = [...before].sort((x, y) => x[0] - y[0]);
  let k = 0;
  for (const seg of [...start.values()].sort((x, y) => x.addr - y.addr)) {
    segs.set(seg.addr, seg);
    while (k < blocks.length && blocks[k]![0] < seg.addr) k++;
    const inside: [number, number][] = [];
    for (; k < blocks.length && blocks[k]![0] < seg.addr + seg.size; k++) inside.push(blocks[k]!);
    let at = seg.addr;
    let prev: Blk | null = null;
    const add = (addr: number, size: number, isFree: boolean) => {
      const b: Blk = { addr, size, seg, prev, next: null, free: isFree };
      if (prev) prev.next = b;
      else seg.head = b;
      prev = b;
      if (isFree) free.insert(b);
      else {
        live.set(addr, b);
        bytes += size;
      }
    };
    for (const [addr, size] of inside) {
      if (addr < at) continue; // overlapping guesses: the earlier one stands
      if (addr > at) add(at, addr - at, true);
      const end = Math.min(addr + size, seg.addr + seg.size);
      add(addr, end - addr, false);
      at = end;
    }
    if (at < seg.addr + seg.size) add(at, seg.addr + seg.size - at, true);
  }
  return bytes;
}
