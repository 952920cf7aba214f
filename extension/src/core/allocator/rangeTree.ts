/** A mapped range of the seed's backward walk; `seq` is the order it was recorded in (its pieces keep it). */
export interface Piece {
  lo: number;
  hi: number;
  stream: number;
  small: boolean;
  pool: number;
  seq: number;
}

interface Node {
  p: Piece;
  pri: number;
  l: Node | null;
  r: Node | null;
  maxHi: number;
}

const below = (p: Piece, lo: number, seq: number) => p.lo < lo || (p.lo === lo && p.seq < seq);

function fix(n: Node): Node {
  n.maxHi = Math.max(n.p.hi, n.l ? n.l.maxHi : -Infinity, n.r ? n.r.maxHi : -Infinity);
  return n;
}

/** The keys below (lo, seq), and the rest. */
function split(n: Node | null, lo: number, seq: number): [Node | null, Node | null] {
  if (!n) return [null, null];
  if (below(n.p, lo, seq)) {
    const [a, b] = split(n.r, lo, seq);
    n.r = a;
    return [fix(n), b];
  }
  const [a, b] = split(n.l, lo, seq);
  n.l = b;
  return [a, fix(n)];
}

function merge(a: Node | null, b: Node | null): Node | null {
  if (!a) return b;
  if (!b) return a;
  if (a.pri > b.pri) {
    a.r = merge(a.r, b);
    return fix(a);
  }
  b.l = merge(a, b.l);
  return fix(b);
}

/** Adds `x` below `n`, rotating it up past lower priorities. */
function insert(n: Node | null, x: Node): Node {
  if (!n) return x;
  if (below(x.p, n.p.lo, n.p.seq)) {
    const c = insert(n.l, x);
    n.l = c;
    if (c.pri <= n.pri) return fix(n);
    n.l = c.r;
    c.r = fix(n);
    return fix(c);
  }
  const c = insert(n.r, x);
  if (c.pri <= n.pri) return fix(((n.r = c), n));
  n.r = c.l;
  c.l = fix(n);
  return fix(c);
}

function remove(n: Node | null, p: Piece): Node | null {
  if (!n) return null;
  if (n.p === p) return merge(n.l, n.r);
  if (below(p, n.p.lo, n.p.seq)) n.l = remove(n.l, p);
  else n.r = remove(n.r, p);
  return fix(n);
}

function walk(n: Node | null, out: Piece[], above = -Infinity): void {
  if (!n || n.maxHi <= above) return;
  walk(n.l, out, above);
  if (n.p.hi > above) out.push(n.p);
  walk(n.r, out, above);
}

/** Ranges by (lo, seq): a treap keeping the highest end of each subtree, to find those a cut meets. */
export class RangeTree {
  private root: Node | null = null;

  insert(p: Piece): void {
    this.root = insert(this.root, { p, pri: Math.random(), l: null, r: null, maxHi: p.hi });
  }

  remove(p: Piece): void {
    this.root = remove(this.root, p);
  }

  /** Takes out every range that starts below `hi` and ends above `lo`. */
  take(lo: number, hi: number): Piece[] {
    const [a, b] = split(this.root, lo, -Infinity);
    const [m, c] = split(b, hi, -Infinity);
    const out: Piece[] = [];
    walk(a, out, lo);
    this.root = merge(a, c);
    for (const p of out) this.remove(p);
    walk(m, out);
    return out;
  }

  /** The range starting highest at or below `addr`, the earliest recorded of those. */
  floor(addr: number): Piece | undefined {
    let best: Piece | undefined;
    for (let n = this.root; n; )
      if (n.p.lo <= addr) [best, n] = [n.p, n.r];
      else n = n.l;
    if (!best) return undefined;
    const lo = best.lo;
    for (let n = this.root; n; )
      if (n.p.lo >= lo) [best, n] = [n.p, n.l];
      else n = n.r;
    return best;
  }

  all(): Piece[] {
    const out: Piece[] = [];
    walk(this.root, out);
    return out;
  }
}
