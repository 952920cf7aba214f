import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, within } from '../syntax/nodeIndex';
import { modeCalls, callersNoGrad } from './evalContext';
import { testCode, trainsIn } from './inferenceLoop';
import { classOfMethod, enclosingLoop } from './scopes';
import type { Qualify } from './scopes';

// A per-batch method of a trainer that is not Lightning's (`def validation_step(self, batch)`): when it
// puts the model in eval mode itself and runs it with grad on, every batch its caller feeds it builds a graph.

const STEP = /^_*\w*_step$/;

/** The model calls after the method's own `.eval()`, with grad on, in a `*_step` that trains nothing and is not in a loop of its own. */
export function evalStepCalls(
  fn: SyntaxNode,
  runsModel: (c: SyntaxNode) => boolean,
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
): SyntaxNode[] {
  if (!STEP.test(fn.childForFieldName('name')?.text ?? '') || !/\.eval\s*\(/.test(fn.text) || !classOfMethod(fn) || testCode(fn)) return [];
  const evalAt = modeCalls(fn).find((m) => m.eval)?.at;
  if (evalAt === undefined || trainsIn(fn) || callersNoGrad(fn, qualify)) return [];
  const body = fn.childForFieldName('body');
  if (!body) return [];
  return within(body, ['call']).filter(
    (c) => c.startIndex > evalAt && !enclosingLoop(c, fn) && !noGrad(c) && runsModel(c) && !/\.(eval|train)$/.test(calleeOf(c).text),
  );
}
