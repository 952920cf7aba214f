import { ChildWalk, ERROR_SYMBOL } from './childWalk';
import type { Views } from './childWalk';

/**
 * What a scan reads of a node and of its tree, and how it has a node made: mirrorTree.ts's
 * MirrorNode and Mirror, named here by shape so that this file imports nothing of theirs (they call
 * the scan, and the scan makes their nodes).
 */
export interface ScanNode {
  readonly m: ScanTree;
  readonly ptr: number;
  readonly startByte: number;
  readonly type: string;
  readonly kids: ScanNode[] | undefined;
  readonly rawCount: number;
}

export interface ScanTree extends Views {
  readonly nodes: { get(slot: number): ScanNode | undefined };
  /** The node at this subtree slot, made once: `parent` is made, `at` its index there, `field` the grammar's. */
  make(slot: number, byte: number, alias: number, parent: ScanNode, at: number, field: number): ScanNode;
}
type MirrorNode = ScanNode;

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

const tables = new WeakMap<readonly (string | undefined)[], Map<string, Uint8Array>>();

/**
 * These names as a table by symbol: over `t.types` (public kinds; an error's symbol is outside it)
 * or `t.symbolNames` (every grammar symbol, hidden ones too). Built once per grammar and names.
 */
function tableOf(symbols: readonly (string | undefined)[], names: readonly string[]): Uint8Array {
  let cache = tables.get(symbols);
  if (!cache) tables.set(symbols, (cache = new Map()));
  const key = names.join(' ');
  let table = cache.get(key);
  if (!table) {
    table = new Uint8Array(symbols.length);
    for (let i = 0; i < symbols.length; i++) if (symbols[i] !== undefined && names.includes(symbols[i]!)) table[i] = 1;
    cache.set(key, table);
  }
  return table;
}

/** Paths of finished scans, for the next (a re-lint scans many small regions). */
const spare: Path[] = [];

/**
 * Where a scan need not look, because the grammar says none of the wanted kinds can be there (no
 * statement can be inside an expression): only visible nodes of the kinds `enter` are read into,
 * and hidden nodes of the rules `skipHidden` are not. A subtree with an error is read whatever it is.
 */
export interface Prune {
  enter: readonly string[];
  skipHidden: readonly string[];
}

/** Nodes of the kinds `want` under `root` (not root itself), in document order, into `out`; `prune`: where not to look. */
export function scanKinds(root: MirrorNode, want: readonly string[], out: MirrorNode[], prune?: Prune): void {
  const { t } = root.m;
  let path = spare.pop() ?? newPath(64);
  try {
    scanWith(
      root,
      want,
      tableOf(t.types, want),
      prune && tableOf(t.types, prune.enter),
      prune && tableOf(t.symbolNames, prune.skipHidden),
      path,
      (p) => (path = p),
      out,
    );
  } finally {
    path.node.fill(undefined);
    spare.push(path);
  }
}

function scanWith(
  root: MirrorNode,
  want: readonly string[],
  wanted: Uint8Array,
  into: Uint8Array | undefined,
  skip: Uint8Array | undefined,
  path: Path,
  grown: (p: Path) => void,
  out: MirrorNode[],
): void {
  const { m } = root;
  path.node[0] = root;
  path.next[0] = 0;

  /** The node at `depth` of the path, made with its ancestors (or the one made before: nodes keep their identity). */
  const made = (d: number): MirrorNode => {
    let k = d;
    while (!path.node[k]) k--;
    for (k++; k <= d; k++) {
      const slot = path.slot[k]!;
      path.node[k] = m.nodes.get(slot) ?? m.make(slot, path.byte[k]!, path.alias[k]!, path.node[k - 1]!, path.at[k]!, path.field[k]!);
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
      if (w.visibleKids && !(skip && skip[m.u16[(w.q + 40) >> 1]!] === 1 && m.u32[(w.q + 32) >> 2] === 0))
        enter(w.q, w.byte, w.field, depth);
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
