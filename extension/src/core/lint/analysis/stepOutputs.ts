import type { SyntaxNode } from '../syntax/syntaxNode';
import { GradFlow } from './gradFlow';
import { classOfMethod } from './scopes';
import { crossRefs, returnsOf } from './summaries';
import type { Qualify } from './scopes';

// What a Lightning `training_step` hands the framework that the framework keeps: with a
// `training_epoch_end(outputs)` (Lightning 1.x), every batch's returned dict until the epoch ends.
// Lightning detaches the "loss" entry itself after its backward; the other entries keep their graphs.

/** Whether fn is a `training_step` of a Lightning class that collects its outputs for `training_epoch_end`. */
export function stepOutputsKept(fn: SyntaxNode): boolean {
  if (fn.childForFieldName('name')?.text !== 'training_step') return false;
  // Another method decides (an editor re-lints this one when it is added or removed: crossCheck.ts).
  crossRefs(fn.tree).defs.add('training_epoch_end');
  const cls = classOfMethod(fn);
  return !!cls && /Lightning/.test(cls.childForFieldName('superclasses')?.text ?? '') && /\bdef\s+training_epoch_end\s*\(/.test(cls.text);
}

/** Each `return {…}` of fn with its entries (other than "loss") whose values carry a graph: `{"loss": loss, "aux": aux}` → aux. */
export function graphEntries(
  fn: SyntaxNode,
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
): { ret: SyntaxNode; values: SyntaxNode[] }[] {
  const body = fn.childForFieldName('body');
  if (!body) return [];
  const flow = new GradFlow(qualify, noGrad);
  flow.run(body, () => undefined);
  const out: { ret: SyntaxNode; values: SyntaxNode[] }[] = [];
  for (const r of returnsOf(fn)) {
    const e = r.namedChild(0);
    if (e?.type !== 'dictionary' || noGrad(r)) continue;
    const values: SyntaxNode[] = [];
    for (const p of e.namedChildren) {
      const key = p?.type === 'pair' ? p.childForFieldName('key') : null;
      const value = p?.childForFieldName('value') ?? null;
      if (key && value && !/^["']loss["']$/.test(key.text) && flow.carries(value)) values.push(value);
    }
    if (values.length) out.push({ ret: r, values });
  }
  return out;
}
