import { FreeBlocks } from './blocks';
import type { Blk } from './blocks';
import type { AllocConfig } from './config';

const MiB = 2 ** 20;
const MIN_BLOCK = 512;

/** should_split: the small pool (and every pool with expandable segments) splits down to 512 B; the large pool keeps remainders of 1 MiB or less. */
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

/** With expandable segments a block below unmapped pages ranks by the size it can grow to. */
const expandableSize = (b: Blk) => b.size + (b.next && b.next.mapped === false ? b.next.size : 0);

/**
 * get_free_block: the best fit on the stream, where an expandable block ranks by the size it can
 * grow to; then the oversize rules, which refuse without a fallback (later blocks are larger).
 */
export function bestFit(free: FreeBlocks, small: boolean, stream: number, size: number, cfg: AllocConfig, pool = 0): Blk | undefined {
  const l = free.list(pool, small, stream);
  let i = FreeBlocks.lowerBound(l, size, -Infinity);
  let b = l[i];
  if (!b) return undefined;
  if (b.seg.expandable && cfg.expandable) while (l[i + 1] && expandableSize(l[i + 1]!) < expandableSize(l[i]!)) b = l[++i]!;
  if (size < cfg.maxSplitSize && b.size >= cfg.maxSplitSize) return undefined;
  if (size >= cfg.maxSplitSize && b.size >= size + cfg.maxNonSplitRounding) return undefined;
  return b;
}

/** free_block and try_merge_blocks: the block joins its free neighbours of the same mapping and goes back to its pool. */
export function release(free: FreeBlocks, b: Blk): void {
  b.free = true;
  mergeFree(free, b);
  free.insert(b);
}

/** `b` (outside the free lists) takes over its free mapped neighbours. */
export function mergeFree(free: FreeBlocks, b: Blk): void {
  for (const n of [b.prev, b.next]) {
    if (!n || !n.free || n.mapped === false) continue;
    free.remove(n);
    absorb(b, n);
  }
}

/** `b` takes over its neighbour `n` (both outside the free lists). */
export function absorb(b: Blk, n: Blk): void {
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

/** Splits `b` (outside the free lists) at `addr`; returns the upper part. */
export function splitAt(b: Blk, addr: number): Blk {
  const upper: Blk = { addr, size: b.addr + b.size - addr, seg: b.seg, prev: b, next: b.next, free: b.free, mapped: b.mapped };
  if (b.next) b.next.prev = upper;
  b.next = upper;
  b.size = addr - b.addr;
  return upper;
}
