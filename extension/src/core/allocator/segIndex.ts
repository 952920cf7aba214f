import { findBlock } from './blockIndex';
import type { Blk, Seg } from './blocks';

/**
 * The replay's segments by address: cudaMalloc'd ones sorted for a binary search, expandable ones
 * (a few virtual ranges, each far larger than what it maps) by the nearest base below.
 */
export class SegIndex {
  private readonly plain: Seg[] = [];
  readonly expandable: Seg[] = [];

  private lower(addr: number): number {
    return lastAtOrBelow(this.plain, addr);
  }

  add(seg: Seg): void {
    if (seg.expandable) this.expandable.push(seg);
    else this.plain.splice(this.lower(seg.addr) + 1, 0, seg);
  }

  remove(seg: Seg): void {
    if (seg.expandable) this.expandable.splice(this.expandable.indexOf(seg), 1);
    else this.plain.splice(this.lower(seg.addr), 1);
  }

  /** A cudaMalloc'd segment that starts at `addr`. */
  startingAt(addr: number): Seg | undefined {
    const s = this.plain[this.lower(addr)];
    return s?.addr === addr ? s : undefined;
  }

  /** The segment holding `addr`. */
  at(addr: number): Seg | undefined {
    const s = this.plain[this.lower(addr)];
    if (s && addr < s.addr + s.size) return s;
    let best: Seg | undefined;
    for (const e of this.expandable) if (e.addr <= addr && addr < e.addr + e.size && (!best || e.addr > best.addr)) best = e;
    return best;
  }

  all(): Seg[] {
    return [...this.plain, ...this.expandable];
  }
}

/** In a list sorted by address, the index of the last item starting at or below `addr` (-1: none). */
export function lastAtOrBelow(xs: readonly { addr: number }[], addr: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]!.addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The highest end of the cudaMalloc'd segments, at least 0 (a loop: a spread overflows the stack). */
export function highestEnd(segs: readonly Seg[]): number {
  let end = 0;
  for (const g of segs) end = Math.max(end, g.expandable ? 0 : g.addr + g.size);
  return end;
}

/** The block of `seg` holding `addr`, found through an index kept per segment. */
export const blockAt = (seg: Seg, addr: number): Blk | undefined => findBlock(seg, addr);
