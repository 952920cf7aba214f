import { type Piece, RangeTree } from './rangeTree';

/**
 * The expandable ranges mapped, walking the trace backward: a segment_map cuts its range out of
 * every one, a segment_unmap adds one (its pool and kind those of the nearest below on its stream).
 * Kept in trees, O(log n) a step; a range not ordinary (empty, reversed, not finite) turns it
 * into the plain list it models, in the order the ranges were recorded.
 */
export class MappedRanges {
  private readonly tree = new RangeTree();
  private readonly byStream = new Map<number, RangeTree>();
  private list: Piece[] | null = null;
  private seq = 0;

  private static plain(lo: number, hi: number): boolean {
    return Number.isFinite(lo) && Number.isFinite(hi) && hi > lo;
  }

  private streamTree(stream: number): RangeTree {
    let t = this.byStream.get(stream);
    if (!t) this.byStream.set(stream, (t = new RangeTree()));
    return t;
  }

  private toList(): Piece[] {
    this.list ??= this.tree.all().sort((x, y) => x.seq - y.seq || x.lo - y.lo);
    return this.list;
  }

  private put(p: Piece): void {
    if (this.list || !MappedRanges.plain(p.lo, p.hi)) this.toList().push(p);
    else {
      this.tree.insert(p);
      this.streamTree(p.stream).insert(p);
    }
  }

  add(r: Omit<Piece, 'seq'>): void {
    this.put({ ...r, seq: this.seq++ });
  }

  map(addr: number, size: number): void {
    const end = addr + size;
    const cut = (r: Piece) => [
      { ...r, hi: Math.min(r.hi, addr) },
      { ...r, lo: Math.max(r.lo, end) },
    ];
    if (this.list || !(MappedRanges.plain(addr, end) || (size === 0 && Number.isFinite(addr)))) {
      this.list = this.toList()
        .flatMap(cut)
        .filter((r) => r.hi > r.lo);
      return;
    }
    for (const r of this.tree.take(addr, end)) {
      this.byStream.get(r.stream)!.remove(r);
      // cut(r) less its empty pieces: the part below the map, then the part above it.
      if (r.lo < addr) this.put({ ...r, hi: Math.min(r.hi, addr) });
      if (r.hi > end) this.put({ ...r, lo: Math.max(r.lo, end) });
    }
  }

  unmap(addr: number, size: number, stream: number): void {
    const near = this.list
      ? this.list.filter((r) => r.stream === stream && r.lo <= addr).sort((x, y) => y.lo - x.lo)[0]
      : this.byStream.get(stream)?.floor(addr);
    this.add({ lo: addr, hi: addr + size, stream, small: near?.small ?? false, pool: near?.pool ?? 0 });
  }

  /** Every range, by address (those starting together in the order recorded). */
  sorted(): Piece[] {
    return this.list ? this.list.sort((x, y) => x.lo - y.lo) : this.tree.all();
  }
}
