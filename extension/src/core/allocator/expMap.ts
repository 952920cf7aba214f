import type { Blk, FreeBlocks, Seg } from './blocks';
import { absorb, mergeFree, splitAt } from './rules';
import { blockAt } from './segIndex';

/**
 * Expandable segments as the trace shows them (`segment_map`/`segment_unmap`), for the exact
 * replay: a virtual range whose blocks are mapped or not; a map turns the lowest part of an unmapped
 * block into a free block that joins its free mapped neighbours; an unmap does the reverse.
 */
export const VIRTUAL_RANGE = 2 ** 40; // wider than any device; where it ends is never used

export function newExpandable(addr: number, small: boolean, stream: number, pool: number): Seg {
  const seg: Seg = { addr, size: VIRTUAL_RANGE, stream, small, pool, expandable: true, head: null };
  seg.head = { addr, size: VIRTUAL_RANGE, seg, prev: null, next: null, free: true, mapped: false };
  return seg;
}

/** Maps [addr, addr+size) of `seg`: undefined, or why the trace's map does not fit the replay. */
export function mapRange(free: FreeBlocks, seg: Seg, addr: number, size: number): string | undefined {
  let b = blockAt(seg, addr);
  if (!b || b.mapped !== false || b.addr + b.size < addr + size) return `a map of ${addr} over memory the replay holds mapped`;
  if (b.addr < addr) b = splitAt(b, addr);
  if (b.size > size) splitAt(b, addr + size).mapped = false;
  b.mapped = undefined;
  mergeFree(free, b);
  free.insert(b);
  return undefined;
}

/** Unmaps [addr, addr+size), which must lie in one free mapped block. */
export function unmapRange(free: FreeBlocks, seg: Seg, addr: number, size: number): string | undefined {
  let b = blockAt(seg, addr);
  if (!b || !b.free || b.mapped === false || b.addr + b.size < addr + size)
    return `an unmap of ${addr} over memory the replay holds in use`;
  free.remove(b);
  if (b.addr < addr) {
    const lower = b;
    b = splitAt(lower, addr);
    free.insert(lower);
  }
  if (b.size > size) free.insert(splitAt(b, addr + size));
  b.mapped = false;
  for (const n of [b.prev, b.next]) if (n && n.mapped === false) absorb(b, n);
  return undefined;
}

/**
 * find_expandable_block: the lowest unmapped block of these segments (with the free mapped block
 * just below it, if any) from which free address space runs to `size`; where its map begins.
 */
export function expectedMap(segs: Seg[], size: number): number | undefined {
  for (const seg of [...segs].sort((x, y) => x.addr - y.addr)) {
    for (let c: Blk | null = seg.head; c; c = c.next) {
      if (c.mapped !== false) continue;
      const from = c.prev && c.prev.free ? c.prev : c;
      let bytes = 0;
      for (let x: Blk | null = from; x && x.free && bytes < size; x = x.next) bytes += x.size;
      if (bytes >= size) return c.addr;
    }
  }
  return undefined;
}

/** True when nothing of `seg` is mapped any more (PyTorch then gives the range back). */
export const allUnmapped = (seg: Seg) => seg.head !== null && seg.head.mapped === false && seg.head.next === null;

/** The mapped runs of a seeded expandable segment as segments of their own (what the prediction starts from). */
export function mappedRuns(seg: Seg): Seg[] {
  const out: Seg[] = [];
  let run: Seg | undefined;
  for (let b = seg.head; b; b = b.next) {
    if (b.mapped === false) {
      run = undefined;
      continue;
    }
    if (!run) {
      run = { addr: b.addr, size: 0, stream: seg.stream, small: seg.small, pool: seg.pool, head: b };
      out.push(run);
      if (b.prev) b.prev.next = null;
      b.prev = null;
    }
    if (b.next?.mapped === false) b.next.prev = null;
    b.seg = run;
    run.size += b.size;
  }
  for (const r of out) {
    let b = r.head;
    while (b?.next && b.next.mapped !== false) b = b.next;
    if (b) b.next = null;
  }
  return out;
}
