import type { SyntaxNode } from '../syntax/syntaxNode';
import { growsAcrossSteps } from '../analysis/growth';
import { isModelCall } from '../analysis/calls';
import { loopFacts } from '../analysis/loops';
import { calleeOf, nodesOf, within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { defineRule } from './rule';

/** Whether `name`, at `at` in the loop body, holds a model output on the device: its last assignment before `at` is a model call. */
function deviceOutput(body: SyntaxNode, name: string, at: SyntaxNode): boolean {
  let last: SyntaxNode | undefined;
  for (const a of within(body, ['assignment'])) {
    if (a.startIndex >= at.startIndex) break;
    const l = a.childForFieldName('left');
    if (l?.type === 'identifier' && l.text === name) last = a.childForFieldName('right') ?? undefined;
  }
  // `outputs = outputs[:, -n:].cpu().numpy()` after the model call: a host copy by then.
  return last?.type === 'call' && isModelCall(calleeOf(last).text);
}

/**
 * Whether what is appended at `at` is a model output on the device: the model call itself
 * (`preds.append(model(x))`), a name assigned from one, or either under methods, attributes or
 * indexing that keep it there (`out.logits.softmax(-1)`, `out[0]`).
 */
function onDevice(body: SyntaxNode, e: SyntaxNode, at: SyntaxNode): boolean {
  for (let n: SyntaxNode | null = e; n; ) {
    if (n.type === 'identifier') return deviceOutput(body, n.text, at);
    if (n.type === 'call') {
      if (isModelCall(calleeOf(n).text)) return true;
      const f = n.childForFieldName('function');
      n = f?.type === 'attribute' ? f.childForFieldName('object') : null;
    } else if (n.type === 'attribute') n = n.childForFieldName('object');
    else if (n.type === 'subscript') n = n.childForFieldName('value');
    else return false;
  }
  return false;
}

/** HR003 outputs-retained-on-gpu (off by default): predictions collected on the GPU grow with the dataset. */
export function hr003(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of nodesOf(ctx.root, 'for_statement')) {
    if (!loop) continue;
    const f = loopFacts(loop);
    const body = loop.childForFieldName('body');
    if (!body || f.train || !f.step) continue; // an eval loop over data, not layers or micro-batches inside forward()
    for (const c of within(body, ['call'])) {
      const fn = c.childForFieldName('function');
      const obj = fn?.childForFieldName('object');
      const arg = c.childForFieldName('arguments')?.namedChild(0);
      if (fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'append' || obj?.type !== 'identifier' || !arg) continue;
      if (!onDevice(body, arg, c) || /\.(cpu|numpy|tolist|item)\(/.test(arg.text) || !growsAcrossSteps(obj.text, c, loop)) continue;
      out.push(
        findingAt(
          'HR003',
          'info',
          c,
          `\`${obj.text}\` collects model outputs on the GPU: device memory grows with the dataset until the loop ends. Move them to the host as they come.`,
          [
            {
              title: `Keep a host copy: ${arg.text}.detach().cpu()`,
              preferred: true,
              edits: [{ start: arg.startIndex, end: arg.endIndex, text: `${arg.text}.detach().cpu()` }],
            },
          ],
        ),
      );
    }
  }
  return out;
}

export const HR003 = defineRule({
  id: 'HR003',
  name: 'outputs-retained-on-gpu',
  severities: ['info'],
  off: true,
  dependsOn: [],
  run: hr003,
});
