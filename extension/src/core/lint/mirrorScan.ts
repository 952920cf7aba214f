import { ChildWalk, ERROR_SYMBOL } from './childWalk';
import { MirrorNode } from './mirrorTree';
import type { LanguageTables } from './wasmTables';

/**
 * The visible nodes a scan is inside, by depth (typed arrays, not an object per node: a file has
 * tens of thousands; only a match and its ancestors become MirrorNodes).
 */
interface Path {
  node: (MirrorNode | undefined)[];
  slot: Uint32Array;
  byte: Uint32Array;
  alias: Uint32Array;
  field: Uint32Array;
  at: Uint32Array;
  /** How many of its children the scan has passed. */
  next: Uint32Array;
}

const NUMBERS = ['slot', 'byte', 'alias', 'field', 'at', 'next'] as const;

function newPath(size: number, old?: Path): Path {
  const p = { node: new Array<MirrorNode | undefined>(size).fill(undefined) } as Path;
  for (const k of NUMBERS) {
    p[k] = new Uint32Array(size);
    if (old) p[k].set(old[k]);
  }
  if (old) old.node.forEach((n, i) => (p.node[i] = n));
  return p;
}

const byKinds = new WeakMap<LanguageTables, Map<string, Uint8Array>>();

/** The wanted kinds as a table by public symbol (an error's symbol is outside it). */
function wantedOf(t: LanguageTables, want: readonly string[]): Uint8Array {
  let cache = byKinds.get(t);
  if (!cache) byKinds.set(t, (cache = new Map()));
  const key = want.join(' ');
  let wanted = cache.get(key);
  if (!wanted) {
    wanted = new Uint8Array(t.types.length);
    for (let i = 0; i < t.types.length; i++) if (t.types[i] !== undefined && want.includes(t.types[i]!)) wanted[i] = 1;
    cache.set(key, wanted);
  }
  return wanted;
}

/** Paths of finished scans, for the next (a re-lint scans many small regions). */
const spare: Path[] = [];

/**
 * Nodes of the kinds `want` under `root` (not root itself), in document order, into `out`. With
 * `into`, a visible node's subtree is read only if it is of those kinds or has an error in it
 * (where the grammar says none of `want` can be, as no statement can be inside an expression).
 */
export function scanKinds(root: MirrorNode, want: readonly string[], out: MirrorNode[], into?: readonly string[]): void {
  let path = spare.pop() ?? newPath(64);
  try {
    scanWith(root, want, wantedOf(root.m.t, want), into && wantedOf(root.m.t, into), into && hiddenLeaves(root.m.t), path, (p) => (path = p), out);
  } finally {
    path.node.fill(undefined);
    spare.push(path);
  }
}

/** Hidden rules that hold only simple statements (a line's `x = f(y)`; `import a; b()`): nothing a statement scan looks for. */
const SIMPLE = ['_simple_statements'];
const simpleOf = new WeakMap<LanguageTables, Uint8Array>();

/** SIMPLE by grammar symbol (hidden nodes have no public kind). */
function hiddenLeaves(t: LanguageTables): Uint8Array {
  let s = simpleOf.get(t);
  if (!s) {
    s = new Uint8Array(t.symbolNames.length);
    t.symbolNames.forEach((n, i) => SIMPLE.includes(n) && (s![i] = 1));
    simpleOf.set(t, s);
  }
  return s;
}

function scanWith(root: MirrorNode, want: readonly string[], wanted: Uint8Array, into: Uint8Array | undefined, simple: Uint8Array | undefined, path: Path, grown: (p: Path) => void, out: MirrorNode[]): void {
  const { m } = root;
  path.node[0] = root;
  path.next[0] = 0;

  /** The node at `depth` of the path, made with its ancestors (or the one made before: nodes keep their identity). */
  const made = (d: number): MirrorNode => {
    let k = d;
    while (!path.node[k]) k--;
    for (k++; k <= d; k++) {
      const slot = path.slot[k]!;
      path.node[k] = m.nodes.get(slot) ?? new MirrorNode(m, slot, path.byte[k]!, path.alias[k]!, path.node[k - 1]!, path.at[k]!, path.field[k]!);
    }
    return path.node[d]!;
  };

  // MirrorNode.collect's walk, with a stack rather than recursion (deeply nested code): one walk
  // per level, and the path depth of the visible node whose children that level's walk reads.
  const walks: ChildWalk[] = [];
  const depths: number[] = [];
  let level = -1;
  const enter = (ptr: number, byte: number, outer: number, depth: number) => {
    level++;
    walks[level] = walks[level]?.reset(ptr, byte, outer) ?? new ChildWalk(m, ptr, byte, outer);
    depths[level] = depth;
  };
  enter(root.ptr, root.startByte, 0, 0);
  while (level >= 0) {
    const w = walks[level]!;
    const depth = depths[level]!;
    if (!w.next()) {
      level--;
      continue;
    }
    if (!w.relevant) {
      // A hidden node with visible children has heap data (q): its symbol at 40, error cost at 32.
      if (w.visibleKids && !(simple && simple[m.u16[(w.q + 40) >> 1]!] === 1 && m.u32[(w.q + 32) >> 2] === 0)) enter(w.q, w.byte, w.field, depth);
      continue;
    }
    const sym = w.symbol;
    const match = sym === ERROR_SYMBOL ? want.includes('ERROR') : wanted[sym] === 1;
    const at = path.next[depth]!++;
    // Error cost at 32: broken code may put anything anywhere.
    const kids = w.kids && (!into || into[sym] === 1 || m.u32[(w.q + 32) >> 2]! > 0) ? w.kids : 0;
    // Only a node that may be an ancestor of a match (or is one) goes on the path.
    if (!kids && !match) continue;
    const d = depth + 1;
    if (d >= path.slot.length) grown((path = newPath(path.slot.length * 2, path)));
    // Made before only if its parent was (nodes are made parent first): most lookups are skipped.
    path.node[d] = path.node[depth] ? m.nodes.get(w.slot) : undefined;
    path.slot[d] = w.slot;
    path.byte[d] = w.byte;
    path.alias[d] = w.alias;
    path.field[d] = w.field;
    path.at[d] = at;
    path.next[d] = 0;
    if (match) out.push(made(d));
    if (!kids) continue;
    const done = path.node[d];
    if (done?.kids) kindsAmong(done.kids, want, out);
    else enter(w.q, w.byte, 0, d);
  }
}

/** Nodes of these kinds among nodes already read and their descendants, in document order. */
export function kindsAmong(nodes: readonly MirrorNode[], want: readonly string[], out: MirrorNode[]): void {
  const stack = [...nodes].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (want.includes(n.type)) out.push(n);
    if (n.kids) for (let i = n.kids.length - 1; i >= 0; i--) stack.push(n.kids[i]!);
    else if (n.rawCount) scanKinds(n, want, out);
  }
}
