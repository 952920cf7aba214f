import { FreeBlocks, poolKey } from './blocks';
import type { Blk, Seg } from './blocks';

const MiB = 2 ** 20;
/** Pages are mapped 2 MiB at a time in the small pool, 20 MiB in the large one (§4.9). */
const pageOf = (small: boolean) => (small ? 2 * MiB : 20 * MiB);

/**
 * Expandable segments for the prediction: one per (pool, kind, stream), a virtual range whose pages are
 * mapped as blocks need them. A request no free block holds takes the free block at the top and
 * maps what it lacks above it; a free block at the top ranks after every other that fits (PyTorch
 * counts the unmapped range above it in its size). Release unmaps every whole page inside a free
 * block; a block placed over unmapped pages maps them again. Reserved = mapped pages.
 */
export class ExpandableSegments {
  private readonly segs = new Map<string, Seg>();
  /** Per segment, the indices of its unmapped pages below its top. */
  private readonly holes = new Map<Seg, Set<number>>();

  constructor(
    private readonly free: FreeBlocks,
    private readonly place: () => number,
  ) {}

  /** Per segment, its last block when last asked: a block merged away since leads back to one still listed. */
  private readonly tails = new Map<Seg, Blk>();

  private top(seg: Seg): Blk | null {
    let b: Blk | null = this.tails.get(seg) ?? null;
    while (b && (b.prev ? b.prev.next !== b : seg.head !== b)) b = b.prev;
    b ??= seg.head;
    while (b?.next) b = b.next;
    if (b) this.tails.set(seg, b);
    return b;
  }

  private isTop(b: Blk): boolean {
    return this.segs.get(poolKey(b.seg.pool, b.seg.small, b.seg.stream)) === b.seg && b.next === null;
  }

  /** The best fitting free block, the top one last; else the top one to grow, or none. */
  pick(small: boolean, stream: number, size: number, pool: number): Blk | undefined {
    let top: Blk | undefined;
    const l = this.free.list(pool, small, stream);
    for (let i = FreeBlocks.lowerBound(l, size, -Infinity); i < l.length; i++) {
      const b = l[i]!;
      if (!this.isTop(b)) return b;
      top = b;
    }
    return top;
  }

  /** Bytes to map to place `size` bytes at the bottom of `b` (or at the top of its segment when `b` is none). */
  cost(small: boolean, stream: number, size: number, pool: number, b?: Blk): number {
    const seg = b?.seg ?? this.segs.get(poolKey(pool, small, stream));
    const page = pageOf(small);
    if (!seg) return Math.ceil(size / page) * page;
    const t = this.top(seg);
    const from = b ? b.addr : t?.free ? t.addr : seg.addr + seg.size;
    const end = from + size;
    const holes = this.holes.get(seg);
    let bytes = 0;
    for (let p = Math.floor((from - seg.addr) / page); seg.addr + p * page < Math.min(end, seg.addr + seg.size); p++)
      if (holes?.has(p)) bytes += page;
    if (end > seg.addr + seg.size) bytes += Math.ceil((end - seg.addr - seg.size) / page) * page;
    return bytes;
  }

  /** Maps what `cost` counted and returns the free block that now holds the request at its bottom. */
  place_(small: boolean, stream: number, size: number, pool: number, b?: Blk): Blk {
    const k = poolKey(pool, small, stream);
    let seg = b?.seg ?? this.segs.get(k);
    if (!seg) {
      seg = { addr: this.place(), size: 0, stream, small, pool, head: null };
      this.segs.set(k, seg);
    }
    const page = pageOf(small);
    const t = this.top(seg);
    const at = b ? b.addr : t?.free ? t.addr : seg.addr + seg.size;
    const holes = this.holes.get(seg);
    for (let p = Math.floor((at - seg.addr) / page); seg.addr + p * page < at + size; p++) holes?.delete(p);
    const end = at + size;
    if (end <= seg.addr + seg.size) return b ?? t!;
    const grow = Math.ceil((end - seg.addr - seg.size) / page) * page;
    seg.size += grow;
    if (t?.free) {
      this.free.remove(t);
      t.size += grow;
      this.free.insert(t);
      return t;
    }
    const nb: Blk = { addr: seg.addr + seg.size - grow, size: grow, seg, prev: t, next: null, free: true };
    if (t) t.next = nb;
    else seg.head = nb;
    this.free.insert(nb);
    return nb;
  }

  /** Unmaps every whole page inside a free block; returns the bytes unmapped. */
  unmapFree(): number {
    let out = 0;
    for (const seg of this.segs.values()) {
      const page = pageOf(seg.small);
      let holes = this.holes.get(seg);
      if (!holes) this.holes.set(seg, (holes = new Set()));
      for (let b = seg.head; b; b = b.next) {
        if (!b.free) continue;
        for (let p = Math.ceil((b.addr - seg.addr) / page); seg.addr + (p + 1) * page <= b.addr + b.size; p++) {
          if (holes.has(p)) continue;
          holes.add(p);
          out += page;
        }
      }
    }
    return out;
  }
}
