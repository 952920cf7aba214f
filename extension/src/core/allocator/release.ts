import type { Blk, FreeBlocks, Seg } from './blocks';
import type { AllocConfig } from './config';
import type { ExpandableSegments } from './exp';
import { segmentSize } from './limit';
import type { Limit } from './limit';

/**
 * The prediction's reserved memory and the ways the allocator gives it back: garbage collection
 * under a cap (`garbage_collect_cached_blocks`), `release_available_cached_blocks` (with
 * max_split_size) and `release_cached_blocks` (whole free segments, free expandable pages).
 * Private pools keep their memory: only the default pool's is given back.
 */
export class Releaser {
  reserved = 0;
  private readonly segs = new Set<Seg>();
  /** get_free_block calls in the default large pool: a cached block's age for the collector. */
  private calls = 0;

  constructor(
    private readonly free: FreeBlocks,
    private readonly exp: ExpandableSegments,
    private readonly cfg: AllocConfig,
    private readonly limit: Limit,
  ) {
    free.stamp = (b) => (b.gcBase = this.calls);
  }

  private get collecting(): boolean {
    return this.limit.cap && this.cfg.gcThreshold > 0;
  }

  adopt(g: Seg): void {
    this.segs.add(g);
    this.reserved += g.size;
  }

  searched(pool: number, small: boolean): void {
    if (this.collecting && pool === 0 && !small) this.calls++;
  }

  /** Room for `cost` more bytes (mapped pages), or under a cap for a segment of `allocSize`. */
  room(cost: number, allocSize: number): boolean {
    return this.reserved + (this.limit.cap ? allocSize : cost) <= this.limit.bytes;
  }

  private drop(b: Blk): void {
    this.free.remove(b);
    this.segs.delete(b.seg);
    this.reserved -= b.seg.size;
  }

  private wholeFree(stream?: number): Blk[] {
    const out: Blk[] = [];
    for (const g of this.segs)
      if (g.pool === 0 && !g.small && g.head?.free && !g.head.next && (stream === undefined || g.stream === stream)) out.push(g.head);
    return out;
  }

  /** release_cached_blocks: every free block that is a whole segment goes back; free expandable pages are unmapped. */
  releaseAll(): void {
    for (const g of [...this.segs]) if (g.pool === 0 && g.head?.free && !g.head.next) this.drop(g.head);
    this.reserved -= this.exp.unmapFree();
  }

  /** release_available_cached_blocks: with max_split_size set, oversize cached segments on this stream. */
  private releaseOversize(size: number, stream: number): boolean {
    if (this.cfg.maxSplitSize === Infinity) return false;
    const key = Math.max(size, this.cfg.maxSplitSize);
    const whole = this.wholeFree(stream)
      .filter((b) => b.size >= this.cfg.maxSplitSize)
      .sort((a, b) => a.size - b.size || a.addr - b.addr);
    const one = whole.find((b) => b.size >= key);
    if (one) return (this.drop(one), true);
    let got = 0;
    for (const b of whole.reverse()) {
      if (got >= key) break;
      this.drop(b);
      got += b.size;
    }
    return got >= key;
  }

  /** garbage_collect_cached_blocks: under a cap past the threshold, whole cached segments of at least the average age. */
  collect(): void {
    if (!this.collecting) return;
    const threshold = this.cfg.gcThreshold * this.limit.bytes;
    if (this.reserved <= threshold) return;
    const target = this.reserved - threshold;
    let blocks = this.wholeFree().sort((a, b) => a.seg.stream - b.seg.stream || a.size - b.size || a.addr - b.addr);
    const age = (b: Blk) => this.calls - (b.gcBase ?? 0);
    let total = blocks.reduce((x, b) => x + age(b), 0);
    let reclaimed = 0;
    let freed = true;
    while (reclaimed < target && freed && blocks.length) {
      const avg = total / blocks.length;
      freed = false;
      for (const b of blocks.filter((x) => age(x) >= avg)) {
        freed = true;
        reclaimed += b.size;
        total -= age(b);
        this.drop(b);
      }
      blocks = blocks.filter((x) => this.segs.has(x.seg));
    }
  }

  /**
   * With expandable segments: the best fitting free block, else pages mapped at the top (exp.ts),
   * releasing cached memory once when that would pass the limit (under a cap the allocator checks
   * a whole segment's size before mapping); undefined: an OOM.
   */
  mapExpandable(size: number, small: boolean, stream: number, pool: number): Blk | undefined {
    const exp = this.exp;
    let pick = exp.pick(small, stream, size, pool);
    let want = exp.cost(small, stream, size, pool, pick);
    if (want > 0 && !this.room(want, segmentSize(size))) {
      this.releaseAll();
      pick = exp.pick(small, stream, size, pool);
      want = exp.cost(small, stream, size, pool, pick);
    }
    if (want > 0 && !this.room(want, segmentSize(size))) return undefined;
    this.reserved += want;
    return exp.place_(small, stream, size, pool, pick);
  }

  /** alloc_block with its retries: a new segment within the limit, or undefined (an OOM). */
  grow(size: number, stream: number, make: () => Seg): Blk | undefined {
    const want = segmentSize(size);
    const fits = () => this.reserved + want <= this.limit.bytes;
    if (!fits() && !(this.releaseOversize(size, stream) && fits())) this.releaseAll();
    if (!fits()) return undefined;
    const seg = make();
    this.adopt(seg);
    this.free.insert(seg.head!);
    return seg.head!;
  }
}
