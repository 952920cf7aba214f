/**
 * The caching allocator's blocks: each segment a doubly linked list of blocks from its lowest
 * address up, the free ones also kept per (pool, stream) sorted by (size, address), the order of
 * PyTorch's `BlockComparatorSize` (stream, size, ptr), so the first fit is the best fit.
 */
export interface Seg {
  addr: number;
  size: number;
  stream: number;
  small: boolean;
  /** The block at the segment's lowest address. */
  head: Blk | null;
}

export interface Blk {
  addr: number;
  size: number;
  seg: Seg;
  prev: Blk | null;
  next: Blk | null;
  free: boolean;
}

const key = (small: boolean, stream: number) => (small ? -1 - stream : stream);

export class FreeBlocks {
  private readonly sets = new Map<number, Blk[]>();

  private list(small: boolean, stream: number): Blk[] {
    const k = key(small, stream);
    let l = this.sets.get(k);
    if (!l) this.sets.set(k, (l = []));
    return l;
  }

  /** Index of the first block not below (size, addr). */
  private static lowerBound(l: Blk[], size: number, addr: number): number {
    let lo = 0;
    let hi = l.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const b = l[mid]!;
      if (b.size < size || (b.size === size && b.addr < addr)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(b: Blk): void {
    const l = this.list(b.seg.small, b.seg.stream);
    l.splice(FreeBlocks.lowerBound(l, b.size, b.addr), 0, b);
  }

  remove(b: Blk): void {
    const l = this.list(b.seg.small, b.seg.stream);
    const i = FreeBlocks.lowerBound(l, b.size, b.addr);
    if (l[i] === b) l.splice(i, 1);
    else throw new Error(`free block ${b.addr} not in its pool`);
  }

  /** The smallest free block of the pool on this stream with at least `size` bytes, lowest address first. */
  lowest(small: boolean, stream: number, size: number): Blk | undefined {
    const l = this.list(small, stream);
    return l[FreeBlocks.lowerBound(l, size, -Infinity)];
  }

  /** The free blocks of the pool on this stream with at least `size` bytes, best fit first. */
  from(small: boolean, stream: number, size: number): Blk[] {
    const l = this.list(small, stream);
    return l.slice(FreeBlocks.lowerBound(l, size, -Infinity));
  }
}
