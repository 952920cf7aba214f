import type { SyntaxNode } from '../syntax/syntaxNode';
import { memo, nodesOf } from '../syntax/nodeIndex';
import { classOfMethod } from './scopes';

/**
 * Methods a framework calls once per batch, with the loop in the framework: Lightning's steps and
 * batch-end hooks, HF Trainer's `compute_loss`/`training_step`, Ignite/Accelerate-style `train_step`.
 * State kept on `self` in them outlives the batch, as a list defined before a loop does.
 */
const PER_BATCH =
  /^(training_step|train_step|validation_step|test_step|predict_step|compute_loss|prediction_step|on_(train|validation|test|predict)_batch_end|(training|validation|test)_step_end)$/;

/** The per-batch methods in root (functions named as above, defined in a class). */
export function perBatchHooks(root: SyntaxNode): SyntaxNode[] {
  return memo(root, `hooks:${root.id}`, () =>
    nodesOf(root, 'function_definition').filter((fn) => PER_BATCH.test(fn.childForFieldName('name')?.text ?? '') && !!classOfMethod(fn)),
  );
}

/** `self.outputs` in `self.outputs.append(x)`: the attribute a hook keeps across batches, or undefined. */
export function selfAttribute(n: SyntaxNode | null): string | undefined {
  return n?.type === 'attribute' && n.childForFieldName('object')?.text === 'self' ? n.text : undefined;
}

/** Whether the hook itself empties or rebinds `self.x` (then it holds one batch, not all of them). */
export function resetInHook(fn: SyntaxNode, attr: string): boolean {
  const esc = attr.replace(/\./g, '\\.');
  // `self.x = []` rebinds it; `self.x = self.x + loss` adds to it.
  return new RegExp(`(^|[^\\w.])${esc}\\s*=(?!=)(?![^\\n]*${esc})|${esc}\\.clear\\(|del\\s+${esc}\\b`, 'm').test(
    fn.childForFieldName('body')?.text ?? '',
  );
}
