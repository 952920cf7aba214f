import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, memo, nodesOf } from '../syntax/nodeIndex';
import { ancestors } from './scopes';
import type { Qualify } from './scopes';

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
  if (NO_GRAD_STEPS.has(fn.childForFieldName('name')?.text ?? '')) return true;
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

/** Whether n runs with grad disabled: a `with torch.no_grad():` (any alias, parenthesized or not), a decorator, or a Lightning eval step. */
export function underNoGrad(n: SyntaxNode, qualify: Qualify): boolean {
  for (const p of ancestors(n)) {
    if (p.type === 'with_statement') {
      if (memo(p, `with:${p.id}`, () => withDisablesGrad(p, qualify))) return true;
      if (memo(p, `enter:${p.id}`, () => enteredNoGradAt(p, qualify)) <= n.startIndex) return true;
    }
    if (p.type === 'function_definition' && memo(p, `def:${p.id}`, () => defDisablesGrad(p, qualify))) return true;
  }
  return false;
}
