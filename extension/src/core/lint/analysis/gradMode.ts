import type { SyntaxNode } from '../syntax/syntaxNode';
import { NodeIndex, anchored, calleeOf, memo, nodesOf } from '../syntax/nodeIndex';
import { ancestors, classOfMethod, scopeOf } from './scopes';
import { callersOf, referencesOf } from './callers';
import type { Qualify } from './scopes';
import { carried, markUnsure } from './carried';

// Whether code runs with autograd off: no_grad/inference_mode blocks and decorators, ExitStack, Lightning eval steps.

const NO_GRAD = new Set(['torch.no_grad', 'torch.inference_mode', 'torch.autograd.no_grad', 'torch.autograd.grad_mode.no_grad']);
/** Lightning runs these without grad. */
const NO_GRAD_STEPS = new Set(['validation_step', 'test_step', 'predict_step']);

/** Whether a `with` statement's own items disable grad (nested `with`s in its body are their own). */
function withDisablesGrad(w: SyntaxNode, qualify: Qualify): boolean {
  const clause = w.namedChildren.find((c) => c?.type === 'with_clause');
  for (const item of clause?.namedChildren ?? []) {
    if (item?.type !== 'with_item') continue;
    const v = item.childForFieldName('value');
    const call = v?.type === 'as_pattern' ? v.namedChild(0) : v;
    const callee = call?.type === 'call' ? call.childForFieldName('function') : call;
    const q = qualify(callee ?? null);
    if (q && NO_GRAD.has(q)) return true;
    // Project wrappers (yolov5's smart_inference_mode) say what they do in their name.
    if (/(^|\.)\w*(no_grad|inference_mode)$/.test(callee?.text ?? '')) return true;
    if (q === 'torch.set_grad_enabled' && /\(\s*False\s*\)/.test(call?.text ?? '')) return true;
  }
  return false;
}

/** Where, inside a `with ExitStack() as stack:`, `stack.enter_context(torch.no_grad())` turns grad off (detectron2's evaluator). */
function enteredNoGradAt(w: SyntaxNode, qualify: Qualify): number {
  const body = w.childForFieldName('body');
  if (!body || !/enter_context/.test(body.text)) return Infinity;
  for (const c of nodesOf(body, 'call')) {
    if (!/\.enter_context$/.test(calleeOf(c).text)) continue;
    const inner = c.childForFieldName('arguments')?.namedChild(0);
    const q = qualify(inner?.type === 'call' ? inner.childForFieldName('function') : null);
    if (q && NO_GRAD.has(q)) return c.startIndex;
  }
  return Infinity;
}

function defDisablesGrad(fn: SyntaxNode, qualify: Qualify): boolean {
  if (NO_GRAD_STEPS.has(fn.childForFieldName('name')?.text ?? '') && lightningFile(fn)) return true;
  const dec = fn.parent?.type === 'decorated_definition' ? fn.parent : null;
  for (const d of dec?.namedChildren ?? []) {
    if (d?.type !== 'decorator') continue;
    const e = d.namedChild(0);
    const target = e?.type === 'call' ? e.childForFieldName('function') : (e ?? null);
    const q = qualify(target);
    if ((q && NO_GRAD.has(q)) || /(^|\.)\w*(no_grad|inference_mode)$/.test(target?.text ?? '')) return true;
  }
  return false;
}

/** Lightning's eval steps run without grad; a file that does not import Lightning has its own `validation_step` (a trainer's), with grad on. */
function lightningFile(fn: SyntaxNode): boolean {
  const b = NodeIndex.of(fn)?.bindings;
  if (!b || [...b.values()].some((q) => /^(pytorch_lightning|lightning)(\.|$)/.test(q))) return true;
  // Or the class says so (`class M(pl.LightningModule)`, a base imported under another name).
  return /Lightning/.test(classOfMethod(fn)?.childForFieldName('superclasses')?.text ?? '');
}

/**
 * Where a scope turns grad off for the rest of it with a statement (inference scripts):
 * `torch.set_grad_enabled(False)` or `torch.no_grad().__enter__()`; Infinity when it does not.
 */
function disabledFrom(scope: SyntaxNode, qualify: Qualify): number {
  // Found from the text (asked of the whole module once per lint; a file's `def __enter__` must not index all its calls).
  const text = scope.text;
  if (!text.includes('set_grad_enabled') && !text.includes('__enter__')) return Infinity;
  for (const c of anchored(scope, /set_grad_enabled|__enter__/, ['call'])) {
    if (c.parent?.type !== 'expression_statement') continue;
    const f = c.childForFieldName('function');
    const q = qualify(f);
    const off =
      (q === 'torch.set_grad_enabled' || q === 'torch.autograd.set_grad_enabled') &&
      /^\(\s*False\s*\)$/.test(c.childForFieldName('arguments')?.text ?? '');
    const inner = f?.type === 'attribute' && f.childForFieldName('attribute')?.text === '__enter__' ? f.childForFieldName('object') : null;
    const entered = inner?.type === 'call' && NO_GRAD.has(qualify(inner.childForFieldName('function')) ?? '');
    if ((off || entered) && scopeOf(c).equals(scope)) return c.startIndex;
  }
  return Infinity;
}

const asking = new Set<number>();
let cycle = false;

/**
 * Every caller of fn in the file runs it with grad off (then so does fn). A recursion reads as no,
 * and an answer that met one is not kept: kept, it would depend on which function was asked first
 * (an editor re-linting one function asks in another order than a full lint).
 */
function callersAllNoGrad(fn: SyntaxNode, qualify: Qualify): boolean {
  const key = `callersoff:${fn.id}`;
  const ix = NodeIndex.of(fn);
  if (ix?.memo.has(key)) return ix.memo.get(key) as boolean;
  if (asking.has(fn.id)) {
    markUnsure();
    return !(cycle = true);
  }
  const outer = cycle;
  cycle = false;
  asking.add(fn.id);
  try {
    // Callers first: one with grad on settles it, before the name's other uses are looked for.
    const v = carried(fn, 'callers-off', () => {
      const calls = callersOf(fn);
      return (
        calls.every((c) => underNoGrad(c, qualify)) &&
        ((uses) => calls.length + uses.length > 0 && uses.every((r) => underNoGrad(r, qualify)))(referencesOf(fn))
      );
    });
    if (!cycle) ix?.memo.set(key, v);
    return v;
  } finally {
    asking.delete(fn.id);
    cycle ||= outer;
  }
}

/** Whether n runs with grad disabled: a `with torch.no_grad():` (any alias, parenthesized or not), a decorator, or a Lightning eval step. */
export function underNoGrad(n: SyntaxNode, qualify: Qualify, viaCallers = true): boolean {
  for (const p of ancestors(n)) {
    if (p.type === 'with_statement') {
      if (memo(p, `with:${p.id}`, () => withDisablesGrad(p, qualify))) return true;
      if (memo(p, `enter:${p.id}`, () => enteredNoGradAt(p, qualify)) <= n.startIndex) return true;
    }
    if (p.type === 'function_definition' && memo(p, `def:${p.id}`, () => defDisablesGrad(p, qualify))) return true;
    if ((p.type === 'function_definition' || p.type === 'module') && memo(p, `off:${p.id}`, () => disabledFrom(p, qualify)) < n.startIndex)
      return true;
    if (viaCallers && p.type === 'function_definition' && callersAllNoGrad(p, qualify)) return true;
  }
  return false;
}

/**
 * underNoGrad from the code around n alone, not its function's callers: what an edit's effect on a
 * caller is compared by (crossCheck.ts), the callers' own callers being compared when they are edited.
 */
export const underNoGradHere = (n: SyntaxNode, qualify: Qualify): boolean => underNoGrad(n, qualify, false);
