import type { SyntaxNode } from '../syntax/syntaxNode';
import { anchored, calleeOf, isWordChar, memo, within } from '../syntax/nodeIndex';
import { classOfMethod } from './scopes';
import { carried, markUnsure } from './carried';

/**
 * What a function of this file does, read from its own body: whether it returns a value that
 * carries an autograd graph (`return loss`), and whether it runs a model. Call sites use these:
 * `loss = train_step(...)`, `self.infer(x)`. Helpers from other files stay unknown (a helper that
 * returns `loss.item()` is the catalog's own trap). Each part is computed only when a call site asks.
 */
export interface GraphSummary {
  returnsGraph: boolean;
  /** For `return a, b`: which positions carry one (unpacked as `x, y = f()`). */
  parts?: boolean[];
  /** It returns what its arguments carry (`def reduce(t): rt = t.clone(); …; return rt / n`): graph in, graph out. */
  fromArgs?: boolean;
}

/** A function's positional parameter names, `self`/`cls` of a method left out when called as `self.f(…)`. */
export function paramNames(fn: SyntaxNode, method: boolean): string[] {
  const names = (fn.childForFieldName('parameters')?.namedChildren ?? []).map((p) =>
    p?.type === 'identifier'
      ? p.text
      : p?.type === 'typed_parameter'
        ? (p.namedChild(0)?.text ?? '')
        : (p?.childForFieldName('name')?.text ?? ''),
  );
  return method ? names.slice(1) : names;
}

/**
 * Where the file defines each name (`def name`): one pass over the text per tree; nodes are found
 * per name, when asked. What /\bdef[ \t]+(\w+)/g finds, by indexOf (2.4× faster: each re-lint
 * runs it on the whole file). A `def` in a string or comment is dropped when its node is looked up.
 */
export function definitionSites(file: SyntaxNode): Map<string, number[]> {
  return memo(file, 'defsites', () => {
    const out = new Map<string, number[]>();
    const text = file.text;
    for (let i = text.indexOf('def'); i >= 0; i = text.indexOf('def', i + 3)) {
      if (i > 0 && isWordChar(text.charCodeAt(i - 1))) continue;
      let from = i + 3;
      while (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9) from++;
      if (from === i + 3) continue;
      let to = from;
      while (to < text.length && isWordChar(text.charCodeAt(to))) to++;
      if (to === from) continue;
      const name = text.slice(from, to);
      const list = out.get(name) ?? [];
      list.push(file.startIndex + from);
      out.set(name, list);
    }
    return out;
  });
}

/** The file's functions (methods too) named `name`. */
function definitionsOf(file: SyntaxNode, name: string): SyntaxNode[] {
  const sites = definitionSites(file).get(name);
  if (!sites) return [];
  return memo(file, `defs:${name}`, () =>
    sites.flatMap((at) => {
      const fn = file.descendantForIndex(at)?.parent;
      return fn?.type === 'function_definition' && fn.childForFieldName('name')?.text === name ? [fn] : [];
    }),
  );
}

/**
 * What findings in one function read from others, by name: the functions whose summaries or
 * bodies a call site used (`defs`), and the functions whose callers an eval loop looked at
 * (`callers`). An editor re-linting one function at a time re-lints the file when these change.
 */
export interface CrossRefs {
  defs: Set<string>;
  callers: Set<string>;
}
const refsByTree = new WeakMap<object, CrossRefs>();

/** The cross-function reads made while linting this tree. */
export function crossRefs(tree: object): CrossRefs {
  let r = refsByTree.get(tree);
  if (!r) refsByTree.set(tree, (r = { defs: new Set(), callers: new Set() }));
  return r;
}

/**
 * The file's functions a call may run: `f(...)` → the functions named f; `self.f(...)` and
 * `cls.f(...)` → the calling class's own method f if it has one (mmengine's train and val loops
 * each define `run_iter`), else the methods named f (an inherited one may be any). Calls on other
 * objects (`train_util.f`, `x.f`) are not resolved.
 */
export function calledFunctions(c: SyntaxNode): SyntaxNode[] {
  const { node: f, text } = calleeOf(c);
  if (!f) return [];
  const m = /^(?:(?:self|cls)\.)?(\w+)$/.exec(text);
  if (!m) return [];
  // A name looked up and not found counts too: defining it later changes the call.
  crossRefs(f.tree).defs.add(m[1]!);
  const defs = definitionsOf(f.tree.rootNode, m[1]!);
  if (defs.length < 2 || text === m[1]) return defs;
  let cls: SyntaxNode | null = c.parent;
  while (cls && cls.type !== 'class_definition') cls = cls.parent;
  const own = cls ? defs.filter((d) => classOfMethod(d)?.equals(cls!)) : [];
  return own.length ? own : defs;
}

const MAX_DEPTH = 12;

/**
 * One part of the summaries of the function(s) a call runs, computed once per tree, function and
 * part; a recursion (f calls g calls f) reads as unknown (left out).
 */
export function ofCall<T>(c: SyntaxNode, part: string, compute: (fn: SyntaxNode) => T): T[] {
  const out: T[] = [];
  for (const fn of calledFunctions(c)) {
    const v = memo(fn, `${part}:${fn.id}`, () => {
      const busy = memo(fn, 'summary-busy', () => new Set<string>());
      const key = `${part}:${fn.id}`;
      // A recursion, or a chain of helpers deeper than people write (a stranger's generated file): unknown.
      if (busy.has(key) || busy.size >= MAX_DEPTH) return void markUnsure();
      busy.add(key);
      try {
        return carried(fn, part, () => compute(fn));
      } finally {
        busy.delete(key);
      }
    });
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** The graph parts of the summaries of what a call runs, merged: any return carries; positions by OR. */
export function mergeGraph(xs: readonly GraphSummary[]): GraphSummary {
  const out: GraphSummary = { returnsGraph: xs.some((x) => x.returnsGraph) };
  if (xs.some((x) => x.fromArgs)) out.fromArgs = true;
  for (const x of xs)
    if (x.parts) out.parts = out.parts && out.parts.length === x.parts.length ? out.parts.map((v, i) => v || x.parts![i]!) : x.parts;
  return out;
}

/** The `return` statements of fn itself (not of functions nested in it), found from the text. */
export function returnsOf(fn: SyntaxNode): SyntaxNode[] {
  const body = fn.childForFieldName('body');
  return body ? anchored(body, /(?<![\w.])return\b/, ['return_statement']).filter((r) => ownScope(r, fn)) : [];
}

/** The calls directly in fn (not in nested functions). */
export function ownCalls(fn: SyntaxNode): SyntaxNode[] {
  const body = fn.childForFieldName('body');
  return body ? within(body, ['call']) : [];
}

function ownScope(n: SyntaxNode, fn: SyntaxNode): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return p.equals(fn);
  }
  return false;
}
