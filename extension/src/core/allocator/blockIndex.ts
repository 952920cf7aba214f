import type { Blk, Seg } from './blocks';

interface Node {
  key: number;
  b: Blk;
  pri: number;
  l: Node | null;
  r: Node | null;
}

/** The keys below `key`, and the rest. */
function split(n: Node | null, key: number): [Node | null, Node | null] {
  if (!n) return [null, null];
  if (n.key < key) {
    const [a, b] = split(n.r, key);
    n.r = a;
    return [n, b];
  }
  const [a, b] = split(n.l, key);
  n.l = b;
  return [a, n];
}

function merge(a: Node | null, b: Node | null): Node | null {
  if (!a) return b;
  if (!b) return a;
  if (a.pri > b.pri) {
    a.r = merge(a.r, b);
    return a;
  }
  b.l = merge(a, b.l);
  return b;
}

/** Blocks of one segment by the address they had when seen: a treap, one block a key. */
class AddrTree {
  private root: Node | null = null;

  set(key: number, b: Blk): void {
    const [a, rest] = split(this.root, key);
    this.root = merge(merge(a, { key, b, pri: Math.random(), l: null, r: null }), this.above(rest, key));
  }

  delete(key: number): void {
    const [a, rest] = split(this.root, key);
    this.root = merge(a, this.above(rest, key));
  }

  /** The tree less its nodes keyed `key` (its lowest keys). */
  private above(n: Node | null, key: number): Node | null {
    if (!n) return null;
    if (n.key > key) {
      n.l = this.above(n.l, key);
      return n;
    }
    return this.above(n.r, key);
  }

  /** The entry with the highest key at or below `addr`. */
  floor(addr: number): Node | undefined {
    let best: Node | undefined;
    for (let n = this.root; n; ) {
      if (n.key <= addr) [best, n] = [n, n.r];
      else n = n.l;
    }
    return best;
  }
}

const trees = new WeakMap<Seg, AddrTree>();

const listed = (seg: Seg, b: Blk) => b.seg === seg && (b.prev ? b.prev.next === b : seg.head === b);

/**
 * The block of `seg` holding `addr`. The index may hold blocks merged away or moved since (dropped
 * when met) and lack blocks split off since: from the nearest block still listed below `addr`, the
 * walk up the list indexes each block it passes, so each is walked over once.
 */
export function findBlock(seg: Seg, addr: number): Blk | undefined {
  let tree = trees.get(seg);
  if (!tree) trees.set(seg, (tree = new AddrTree()));
  let b: Blk | null = null;
  for (let e = tree.floor(addr); e; e = tree.floor(addr)) {
    if (e.b.addr === e.key && listed(seg, e.b)) {
      b = e.b;
      break;
    }
    tree.delete(e.key);
  }
  b ??= seg.head;
  for (; b; b = b.next) {
    tree.set(b.addr, b);
    if (addr >= b.addr && addr < b.addr + b.size) return b;
  }
  return undefined;
}
