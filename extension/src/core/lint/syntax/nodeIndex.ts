import type { SyntaxNode } from './syntaxNode';

/** The node kinds rules and facts look up, collected in one scan of a region (a walk per kind per rule cost 14 ms each on 5,000 lines). */
const INDEXED = [
  'call',
  'decorator',
  'for_statement',
  'while_statement',
  'with_statement',
  'function_definition',
  'class_definition',
  'lambda',
  'assignment',
  'augmented_assignment',
  'except_clause',
];
const INDEXED_SET = new Set(INDEXED);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);
/** The indexed kinds only a statement or a clause can hold (no expression can): a file's loops and definitions are found without reading its expressions. */
export const STATEMENTS = [
  'decorator',
  'for_statement',
  'while_statement',
  'with_statement',
  'function_definition',
  'class_definition',
  'except_clause',
];
const STATEMENT_SET = new Set(STATEMENTS);

interface Entry {
  node: SyntaxNode;
  type: string;
  start: number;
  end: number;
}

interface Region {
  start: number;
  end: number;
  /** Every indexed kind, or only STATEMENTS. */
  full: boolean;
  /** Sorted by start, parents before children (a pre-order walk). */
  entries: Entry[];
}

/** A call's callee, read once per lint rather than once per rule. */
export interface Callee {
  node: SyntaxNode | null;
  text: string;
  /** `m` in `x.m(…)`. */
  method: string | undefined;
  /** The callee's qualified name, once asked for (null: none). */
  qualified?: string | null;
}

/**
 * Nodes by kind over the parts of one tree being linted, plus per-tree memos (loop facts, callees).
 * Found from any node of the tree, so facts keep their plain signatures. A query outside every
 * indexed region indexes that region first (a module-level loop's scope, when re-linting one statement).
 */
export class NodeIndex {
  private static readonly byTree = new WeakMap<object, NodeIndex>();
  /** Regions found in a tree, kept for the next index of the same tree (an editor's cross-function check, then its lint): they are syntax only. */
  private static readonly regionsByTree = new WeakMap<object, Region[]>();
  private regions: Region[] = [];
  readonly memo = new Map<string, unknown>();
  private readonly callees = new Map<number, Callee>();

  /** The file's import bindings, for facts that qualify names from text. */
  bindings: ReadonlyMap<string, string> | undefined;

  /** Regions are indexed when first asked for (a loop's body, a function), not the whole file up front. */
  static attach(root: SyntaxNode, bindings?: ReadonlyMap<string, string>): NodeIndex {
    const ix = new NodeIndex();
    ix.bindings = bindings;
    let regions = NodeIndex.regionsByTree.get(root.tree);
    if (!regions) NodeIndex.regionsByTree.set(root.tree, (regions = []));
    ix.regions = regions;
    NodeIndex.byTree.set(root.tree, ix);
    return ix;
  }

  static detach(root: SyntaxNode): void {
    NodeIndex.byTree.delete(root.tree);
  }

  static of(n: SyntaxNode): NodeIndex | undefined {
    return NodeIndex.byTree.get(n.tree);
  }

  private add(root: SyntaxNode, statementsOnly: boolean): Region {
    const entries: Entry[] = [];
    // The API's nodes read every node either way (in WebAssembly): all kinds at once, as one region.
    const full = !(statementsOnly && root.statementsOfType);
    const found = full ? root.descendantsOfType(INDEXED) : root.statementsOfType!(STATEMENTS);
    for (const n of found) if (n) entries.push({ node: n, type: n.type, start: n.startIndex, end: n.endIndex });
    const region = { start: root.startIndex, end: root.endIndex, full, entries };
    this.regions.push(region);
    return region;
  }

  /**
   * Nodes of these kinds inside `root` (itself included), in document order; with `scoped`, not
   * those inside a function, class or lambda nested in root (their own scope).
   */
  nodes(root: SyntaxNode, types: readonly string[], scoped = false): SyntaxNode[] {
    const s = root.startIndex;
    const e = root.endIndex;
    const statementsOnly = types.every((t) => STATEMENT_SET.has(t));
    const region = this.regions.find((r) => r.start <= s && e <= r.end && (r.full || statementsOnly)) ?? this.add(root, statementsOnly);
    const xs = region.entries;
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]!.start < s) lo = mid + 1;
      else hi = mid;
    }
    const out: SyntaxNode[] = [];
    const scopes: Entry[] = [];
    for (let i = lo; i < xs.length && xs[i]!.start < e; i++) {
      const x = xs[i]!;
      // Same start, larger end: an ancestor (`f(x)` inside `f(x)(y)`), not a descendant.
      if (x.end > e) continue;
      if (scoped) {
        while (scopes.length && scopes.at(-1)!.end <= x.start) scopes.pop();
        const inside = scopes.length > 0;
        if (SCOPES.has(x.type) && x.node.id !== root.id) scopes.push(x);
        if (inside) continue;
      }
      if (types.includes(x.type)) out.push(x.node);
    }
    // A zero-width root (a missing node) holds nothing but may be one of the kinds.
    if (s === e && types.includes(root.type) && !out.length) out.push(root);
    return out;
  }

  callee(c: SyntaxNode): Callee {
    let x = this.callees.get(c.id);
    if (!x) {
      const f = c.childForFieldName('function');
      x = { node: f, text: f?.text ?? '', method: f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined };
      this.callees.set(c.id, x);
    }
    return x;
  }
}

/** Nodes of these kinds inside `root` (itself included), in document order. */
export function nodesOf(root: SyntaxNode, types: string | readonly string[]): SyntaxNode[] {
  const ts = typeof types === 'string' ? [types] : types;
  const ix = NodeIndex.of(root);
  if (ix && ts.every((t) => INDEXED_SET.has(t))) return ix.nodes(root, ts);
  return root.descendantsOfType(ts as string[]).filter((n): n is SyntaxNode => !!n);
}

/** Descendants of `root` (not root) of these kinds, in document order, not entering nested functions, classes or lambdas. */
export function within(root: SyntaxNode, types: readonly string[]): SyntaxNode[] {
  const ix = NodeIndex.of(root);
  if (ix && types.every((t) => INDEXED_SET.has(t))) return ix.nodes(root, types, true).filter((n) => n.id !== root.id);
  const out: SyntaxNode[] = [];
  const walk = (n: SyntaxNode): void => {
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (types.includes(c.type)) out.push(c);
      if (!SCOPES.has(c.type)) walk(c);
    }
  };
  walk(root);
  return out;
}

/** A call's callee (memoised per tree while it is being linted). */
export function calleeOf(c: SyntaxNode): Callee {
  const ix = NodeIndex.of(c);
  if (ix) return ix.callee(c);
  const f = c.childForFieldName('function');
  return { node: f, text: f?.text ?? '', method: f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined };
}

/** A call's callee's qualified name (`torch.cuda.empty_cache`), memoised with the callee. */
export function qualifiedCallee(c: SyntaxNode, qualify: (n: SyntaxNode | null) => string | undefined): string | undefined {
  const x = calleeOf(c);
  if (x.qualified === undefined) x.qualified = qualify(x.node) ?? null;
  return x.qualified ?? undefined;
}

/** Memoises `compute` per tree and key while the tree is being linted. */
export function memo<T>(n: SyntaxNode, key: string, compute: () => T): T {
  const ix = NodeIndex.of(n);
  if (!ix) return compute();
  if (ix.memo.has(key)) return ix.memo.get(key) as T;
  const v = compute();
  ix.memo.set(key, v);
  return v;
}

/** A character of `\w` (ASCII letters, digits, underscore), by char code. */
export const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

const DEFINITIONS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

/** A scope's own code to search: for a module, its statements other than its functions and classes (scopes of their own); else the scope. */
export function ownStatements(scope: SyntaxNode): SyntaxNode[] {
  return scope.type === 'module' ? scope.namedChildren.filter((c): c is SyntaxNode => !!c && !DEFINITIONS.has(c.type)) : [scope];
}

/**
 * Where the (dotted) name occurs as a whole word in root's code, not in comments or strings, and
 * not after a `.` unless `afterDot`: the innermost node at each. For a module, only in its own
 * statements (its functions and classes are scopes of their own), so that a script's loop does not
 * search the whole file for each of its names. Found by indexOf, not a regular expression.
 */
export function nameOccurrences(root: SyntaxNode, name: string, afterDot = false): readonly SyntaxNode[] {
  return memo(root, `name:${root.id}:${name}:${afterDot}`, () => {
    const out: SyntaxNode[] = [];
    for (const part of ownStatements(root)) {
      const text = part.text;
      for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
        const before = i > 0 ? text.charCodeAt(i - 1) : 32;
        if (isWordChar(before) || (!afterDot && before === 46) || isWordChar(text.charCodeAt(i + name.length))) continue;
        const n = root.descendantForIndex(part.startIndex + i);
        if (n && !NOT_CODE.has(n.type)) out.push(n);
      }
    }
    return out;
  });
}

const NOT_CODE = new Set(['comment', 'string', 'string_start', 'string_content', 'string_end', 'escape_sequence']);

/**
 * The innermost nodes where `pattern` matches inside `root`'s text, skipping matches in comments and
 * strings: a few lookups where a name is rare, instead of a walk over every node.
 */
export function occurrences(root: SyntaxNode, pattern: RegExp): readonly SyntaxNode[] {
  // Memoised: a module-level loop's scope is the whole file, searched again for each accumulator.
  return memo(root, `occ:${root.id}:${pattern.source}`, () => {
    const out: SyntaxNode[] = [];
    const from = root.startIndex;
    for (const m of root.text.matchAll(new RegExp(pattern.source, 'g'))) {
      const n = root.descendantForIndex(from + m.index);
      if (n && !NOT_CODE.has(n.type)) out.push(n);
    }
    return out;
  });
}

/**
 * Nodes of `types` found from the text: at each match of `pattern` inside root (or of its group
 * `at`), the innermost node there or its nearest ancestor of those types (within root). Rules look for rare names this way
 * instead of walking every node of a file (a 5,000-line file has ~60,000 nodes).
 */
export function anchored(root: SyntaxNode, pattern: RegExp, types: readonly string[]): SyntaxNode[] {
  const from = root.startIndex;
  const out: SyntaxNode[] = [];
  const seen = new Set<number>();
  for (const m of root.text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}gd`))) {
    // A group named `at` marks where the node is (after indentation, say); else the match's start.
    let n: SyntaxNode | null = root.descendantForIndex(from + (m.indices?.groups?.at?.[0] ?? m.index));
    if (!n || NOT_CODE.has(n.type)) continue;
    while (n && !types.includes(n.type)) n = n.id === root.id ? null : n.parent;
    if (n && !seen.has(n.id)) {
      seen.add(n.id);
      out.push(n);
    }
  }
  return out.sort((a, b) => a.startIndex - b.startIndex);
}

const lastNames = new WeakMap<ReadonlyMap<string, string>, { size: number; byLast: Map<string, string[]> }>();

/**
 * The local names of a file's bindings by the last part of what they bind (`ckpt` under
 * `checkpoint`): built once per bindings, not once per rule (six rules ask at every re-lint, and a
 * file may bind hundreds of names).
 */
function localNamesByLast(bindings: ReadonlyMap<string, string>): Map<string, string[]> {
  const kept = lastNames.get(bindings);
  if (kept && kept.size === bindings.size) return kept.byLast;
  const byLast = new Map<string, string[]>();
  for (const [k, q] of bindings) {
    const name = q.slice(q.lastIndexOf('.') + 1);
    const list = byLast.get(name);
    if (list) list.push(k);
    else byLast.set(name, [k]);
  }
  lastNames.set(bindings, { size: bindings.size, byLast });
  return byLast;
}

/**
 * Calls (or other `types`) whose callee ends in one of `names`, or in a local alias of one
 * (`from torch.utils.checkpoint import checkpoint as ckpt`); a superset, each rule checks the callee.
 */
export function callsNamed(
  root: SyntaxNode,
  bindings: ReadonlyMap<string, string>,
  names: readonly string[],
  types: readonly string[] = ['call'],
): SyntaxNode[] {
  const last = new Set(names);
  const byLast = localNamesByLast(bindings);
  const aliases = [...last].flatMap((n) => byLast.get(n) ?? []).filter((k) => !last.has(k));
  // Only the names the text holds (most files hold none: indexOf per name is far cheaper than the
  // alternation tried at every position), each once.
  const text = root.text;
  const present = [...last, ...aliases].filter((n) => text.includes(n));
  return present.length ? anchored(root, new RegExp(`(?<![\\w])(?:${present.join('|')})\\b`), types) : [];
}
