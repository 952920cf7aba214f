import { innermostStepLoops } from '../analysis/loops';
import { isModelCall } from '../analysis/calls';
import { calleeOf, nodesOf } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { defineRule } from './rule';

/** HR009 zero-grad-after-forward: clearing grads after the forward keeps last step's grads alive through it. */
export function hr009(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of innermostStepLoops(ctx.root)) {
    const body = loop.node.childForFieldName('body');
    if (!body) continue;
    // Only the loop's own statements: a zero_grad under an `if` is gradient accumulation.
    const stmts = body.namedChildren.filter((s) => s?.type === 'expression_statement' || s?.type === 'assignment');
    // From the index (the loop's body is indexed by the time a step loop is known).
    const calls = stmts.map((s) => nodesOf(s!, ['call']).map((c) => calleeOf(c).text));
    const forward = calls.findIndex((cs) => cs.some((t) => isModelCall(t)));
    const zero = calls.findIndex((cs) => cs.some((t) => /(^|\.)zero_grad$/.test(t)));
    const backward = calls.findIndex((cs) => cs.some((t) => /\.backward$/.test(t)));
    if (forward < 0 || zero < 0 || backward < 0 || !(forward < zero && zero < backward)) continue;
    out.push(
      findingAt(
        'HR009',
        'info',
        stmts[zero]!,
        "zero_grad() after the forward pass: the previous step's gradients stay allocated through the forward, on top of its activations, raising the peak by the size of the gradients. Call it at the start of the step (or right after optimizer.step()).",
        [],
      ),
    );
  }
  return out;
}

export const HR009 = defineRule({
  id: 'HR009',
  name: 'zero-grad-after-forward',
  severities: ['info'],
  dependsOn: [],
  run: hr009,
});
