import { roundSize } from '../analysis/rounding';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';
import { FreeBlocks } from './blocks';
import type { Blk, Seg } from './blocks';
import { configFrom } from './config';
import { seedStart } from './seed';
import type { AllocConfig } from './config';

/**
 * The caching allocator replayed over a snapshot's trace with the settings the run recorded: each
 * allocation is placed by the allocator's rules (best fit by stream, size and address; oversize
 * rules; splitting; merging on free), segments come and go where the trace says. Every placement
 * is checked against the address the trace recorded; the block sizes give PyTorch's own
 * "allocated" figure (requests plus the unsplit remainders), exactly, at every event.
 */
export type AllocReplay =
  | {
      supported: true;
      allocations: number;
      /** Allocations the rules placed elsewhere than the trace recorded (first few). */
      mismatches: { index: number; recorded: number; placed: number }[];
      mismatchCount: number;
      /** PyTorch's allocated bytes after each trace event, and their peak. */
      allocated: Float64Array;
      allocatedPeak: number;
      reservedPeak: number;
    }
  | { supported: false; reason: string };

const MiB = 2 ** 20;
const MIN_BLOCK = 512;

/** should_split: the small pool splits down to 512 B; the large pool keeps remainders of 1 MiB or less. */
export function shouldSplit(b: Blk, size: number, cfg: AllocConfig): boolean {
  const rest = b.size - size;
  return b.seg.small || cfg.expandable ? rest >= MIN_BLOCK : size < cfg.maxSplitSize && rest > MiB;
}

/** alloc_found_block: the request takes the block's low addresses; a remainder worth keeping goes back free. */
export function take(free: FreeBlocks, b: Blk, size: number, cfg: AllocConfig): void {
  free.remove(b);
  if (shouldSplit(b, size, cfg)) {
    const rest: Blk = { addr: b.addr + size, size: b.size - size, seg: b.seg, prev: b, next: b.next, free: true };
    if (b.next) b.next.prev = rest;
    b.next = rest;
    b.size = size;
    free.insert(rest);
  }
  b.free = false;
}

/** get_free_block: the best fit, unless the oversize rules refuse it (no fallback: later ones are larger). */
export function bestFit(free: FreeBlocks, small: boolean, stream: number, size: number, cfg: AllocConfig): Blk | undefined {
  const b = free.lowest(small, stream, size);
  if (!b) return undefined;
  if (size < cfg.maxSplitSize && b.size >= cfg.maxSplitSize) return undefined;
  if (size >= cfg.maxSplitSize && b.size >= size + cfg.maxNonSplitRounding) return undefined;
  return b;
}

/** Why a trace cannot be replayed exactly yet, or undefined. */
function unsupported(s: Snapshot, device: number, cfg: AllocConfig): string | undefined {
  const t = traceOf(s, device);
  if (!t.length) return 'the snapshot has no trace to replay';
  if (cfg.expandable) return 'expandable segments are not replayed yet';
  const final = s.segments.filter((g) => g.device === device);
  if (final.some((g) => g.poolId[0] !== 0 || g.poolId[1] !== 0)) return 'private pools (CUDA graphs, MemPools) are not replayed yet';
  return undefined;
}

/** `cfg`: other settings than the recorded ones (the placements then differ from the trace's). */
export function replayAllocator(s: Snapshot, device: number, cfg: AllocConfig = configFrom(s.allocatorSettings)): AllocReplay {
  const why = unsupported(s, device, cfg);
  if (why) return { supported: false, reason: why };
  const t = traceOf(s, device);
  const free = new FreeBlocks();
  const live = new Map<number, Blk>();
  const segs = new Map<number, Seg>();
  const allocated = new Float64Array(t.length);
  const mismatches: { index: number; recorded: number; placed: number }[] = [];
  let mismatchCount = 0;
  // A trace that begins with segments already held starts from them (seed.ts).
  let now = seedStart(s, t, device, cfg, free, segs, live);
  let peak = now;
  let reserved = [...segs.values()].reduce((x, g) => x + g.size, 0);
  let reservedPeak = reserved;
  let allocations = 0;
  const fail = (i: number, what: string): AllocReplay => ({ supported: false, reason: `event #${i}: ${what}` });
  for (let i = 0; i < t.length; i++) {
    const act = t.action[i]!;
    const addr = t.addr[i]!;
    const stream = t.stream[i]!;
    if (act === Action.SegmentAlloc) {
      const size = t.size[i]!;
      const seg: Seg = { addr, size, stream, small: size === 2 * MiB, head: null };
      seg.head = { addr, size, seg, prev: null, next: null, free: true };
      segs.set(addr, seg);
      free.insert(seg.head);
      reserved += size;
      reservedPeak = Math.max(reservedPeak, reserved);
    } else if (act === Action.SegmentFree) {
      const seg = segs.get(addr);
      const b = seg?.head;
      if (!seg || !b || !b.free || b.size !== seg.size) return fail(i, `segment ${addr} freed while the replay holds blocks in it`);
      free.remove(b);
      segs.delete(addr);
      reserved -= seg.size;
    } else if (act === Action.Alloc) {
      allocations++;
      const size = roundSize(t.size[i]!, cfg.rounding);
      const small = size <= MiB;
      let b = bestFit(free, small, stream, size, cfg);
      if (!b || b.addr !== addr) {
        mismatchCount++;
        if (mismatches.length < 20) mismatches.push({ index: i, recorded: addr, placed: b?.addr ?? -1 });
        // Follow the trace to keep checking what comes after: the free block holding that address.
        b = freeAt(segs, free, addr);
        if (!b) return fail(i, `no free block at ${addr} for an allocation`);
      }
      take(free, b, size, cfg);
      live.set(b.addr, b);
      now += b.size;
      peak = Math.max(peak, now);
    } else if (act === Action.FreeCompleted || act === Action.Free) {
      const b = live.get(addr);
      if (!b) return fail(i, `a free of ${addr}, which the replay never allocated`);
      live.delete(addr);
      now -= b.size;
      release(free, b);
    } else if (act === Action.SegmentMap || act === Action.SegmentUnmap) return fail(i, 'expandable segment mapping is not replayed yet');
    allocated[i] = now;
  }
  return { supported: true, allocations, mismatches, mismatchCount, allocated, allocatedPeak: peak, reservedPeak };
}

/** free_block: the block joins its free neighbours in the segment and goes back to its pool. */
export function release(free: FreeBlocks, b: Blk): void {
  b.free = true;
  for (const n of [b.prev, b.next]) {
    if (!n || !n.free) continue;
    free.remove(n);
    if (n === b.prev) {
      b.addr = n.addr;
      b.prev = n.prev;
      if (n.prev) n.prev.next = b;
      else b.seg.head = b;
    } else {
      b.next = n.next;
      if (n.next) n.next.prev = b;
    }
    b.size += n.size;
  }
  free.insert(b);
}

/**
 * The free block starting at `addr`, carved out of the free block that holds it: where the rules
 * placed an allocation elsewhere, the replay follows the trace to go on checking what comes after.
 */
function freeAt(segs: Map<number, Seg>, free: FreeBlocks, addr: number): Blk | undefined {
  for (const seg of segs.values()) {
    if (addr < seg.addr || addr >= seg.addr + seg.size) continue;
    for (let b = seg.head; b; b = b.next) {
      if (!b.free || addr < b.addr || addr >= b.addr + b.size) continue;
      if (b.addr === addr) return b;
      free.remove(b);
      const tail: Blk = { addr, size: b.addr + b.size - addr, seg, prev: b, next: b.next, free: true };
      if (b.next) b.next.prev = tail;
      b.next = tail;
      b.size = addr - b.addr;
      free.insert(b);
      free.insert(tail);
      return tail;
    }
  }
  return undefined;
}
