/**
 * The caching allocator's blocks: each segment a doubly linked list of blocks from its lowest
 * address up, the free mapped ones also kept per (pool, kind, stream) sorted by (size, address),
 * the order of PyTorch's `BlockComparatorSize` (stream, size, ptr), so the first fit is the best fit.
 */
export interface Seg {
  addr: number;
  size: number;
  stream: number;
  small: boolean;
  /** The memory pool: 0 the default one, else a private pool (a CUDA graph's, a MemPool). */
  pool: number;
  /** An expandable segment: `size` is its virtual range, its blocks mapped or not. */
  expandable?: boolean;
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
  /** False for an expandable segment's unmapped range (free, never in a pool's free list). */
  mapped?: boolean;
  /** When it went back to its pool, in the collector's clock (Releaser). */
  gcBase?: number;
}

/** The free list a block of this pool, kind and stream lives in (segments of the expandable model key by it too). */
export const poolKey = (pool: number, small: boolean, stream: number): string => `${pool}${small ? 's' : 'l'}${stream}`;

export class FreeBlocks {
  /** By stream, then by pool × kind (pool * 2 + small): number keys, no strings on the hot path. */
  private readonly sets = new Map<number, Blk[][]>();
  /** Called on each block that goes back to its pool (insert_into_blocks). */
  stamp?: (b: Blk) => void;

  list(pool: number, small: boolean, stream: number): Blk[] {
    let byPool = this.sets.get(stream);
    if (!byPool) this.sets.set(stream, (byPool = []));
    const k = pool * 2 + (small ? 1 : 0);
    return (byPool[k] ??= []);
  }

  private listOf(b: Blk): Blk[] {
    return this.list(b.seg.pool, b.seg.small, b.seg.stream);
  }

  /** Index of the first block not below (size, addr). */
  static lowerBound(l: Blk[], size: number, addr: number): number {
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
    this.stamp?.(b);
    const l = this.listOf(b);
    l.splice(FreeBlocks.lowerBound(l, b.size, b.addr), 0, b);
  }

  remove(b: Blk): void {
    const l = this.listOf(b);
    const i = FreeBlocks.lowerBound(l, b.size, b.addr);
    if (l[i] === b) l.splice(i, 1);
    else throw new Error(`free block ${b.addr} not in its pool`);
  }

  /** The smallest free block of the pool on this stream with at least `size` bytes, lowest address first. */
  lowest(small: boolean, stream: number, size: number, pool = 0): Blk | undefined {
    const l = this.list(pool, small, stream);
    return l[FreeBlocks.lowerBound(l, size, -Infinity)];
  }

  /** The free blocks of the pool on this stream with at least `size` bytes, best fit first. */
  from(small: boolean, stream: number, size: number, pool = 0): Blk[] {
    const l = this.list(pool, small, stream);
    return l.slice(FreeBlocks.lowerBound(l, size, -Infinity));
  }
}
