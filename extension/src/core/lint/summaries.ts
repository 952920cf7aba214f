import type { Node } from '@vscode/tree-sitter-wasm';
import { anchored, calleeOf, memo, nodesOf } from './nodeIndex';

/**
 * What a function of this file does, read from its own body: whether it returns a value that
 * carries an autograd graph (`return loss`), and whether it runs a model. Call sites use these:
 * `loss = train_step(...)`, `self.infer(x)`. Helpers from other files stay unknown (a helper that
 * returns `loss.item()` is the catalog's own trap).
 */
export interface Summary {
  returnsGraph: boolean;
  runsModel: boolean;
}

/** Computes one function's summary: the data flow (gradFlow.ts), which reads summaries in turn. */
export type Summarize = (fn: Node) => Summary;

const DEF = /^[ \t]*(?:async[ \t]+)?def[ \t]+(?<at>\w+)/m;

/** The file's function definitions by name (methods too, by their own name), found once per tree. */
function definitions(file: Node): Map<string, Node[]> {
  return memo(file, 'defs', () => {
    const out = new Map<string, Node[]>();
    for (const id of anchored(file, DEF, ['identifier'])) {
      const fn = id.parent;
      if (fn?.type !== 'function_definition') continue;
      const list = out.get(id.text) ?? [];
      list.push(fn);
      out.set(id.text, list);
    }
    return out;
  });
}

/**
 * The file's functions a call may run: `f(...)` → the functions named f; `self.f(...)` and
 * `cls.f(...)` → the methods named f. Calls on other objects (`train_util.f`, `x.f`) are not resolved.
 */
export function calledFunctions(c: Node): Node[] {
  const { node: f, text } = calleeOf(c);
  if (!f) return [];
  const m = /^(?:(?:self|cls)\.)?(\w+)$/.exec(text);
  if (!m) return [];
  const file = f.tree.rootNode;
  return definitions(file).get(m[1]!) ?? [];
}

/**
 * The summary of the function(s) a call runs, computed once per tree and function; a recursion
 * (f calls g calls f) reads as "unknown", which is no graph and no model.
 */
export function summaryOfCall(c: Node, summarize: Summarize): Summary {
  const out: Summary = { returnsGraph: false, runsModel: false };
  for (const fn of calledFunctions(c)) {
    const s = memo(fn, `summary:${fn.id}`, () => {
      const ix = memo(fn, 'summary-busy', () => ({}) as Record<number, true>);
      if (ix[fn.id]) return undefined;
      ix[fn.id] = true;
      try {
        return summarize(fn);
      } finally {
        delete ix[fn.id];
      }
    });
    if (!s) continue;
    out.returnsGraph ||= s.returnsGraph;
    out.runsModel ||= s.runsModel;
  }
  return out;
}

/** The `return` statements of fn itself (not of functions nested in it). */
export function returnsOf(fn: Node): Node[] {
  const body = fn.childForFieldName('body');
  if (!body) return [];
  const out: Node[] = [];
  const walk = (n: Node): void => {
    for (const ch of n.namedChildren) {
      if (!ch || ch.type === 'function_definition' || ch.type === 'class_definition' || ch.type === 'lambda') continue;
      if (ch.type === 'return_statement') out.push(ch);
      else walk(ch);
    }
  };
  walk(body);
  return out;
}

/** The calls directly in fn (not in nested functions). */
export function ownCalls(fn: Node): Node[] {
  const body = fn.childForFieldName('body');
  return body ? nodesOf(body, 'call').filter((c) => !insideNested(c, fn)) : [];
}

function insideNested(n: Node, fn: Node): boolean {
  for (let p = n.parent; p && !p.equals(fn); p = p.parent) if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return true;
  return false;
}
