import type { Node } from '@vscode/tree-sitter-wasm';
import { growsAcrossSteps, isModelCall, loopFacts } from '../facts';
import { anchored, calleeOf, within } from '../nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';

/** Names assigned from a model call in the loop body (the outputs). */
function outputs(body: Node): Set<string> {
  const out = new Set<string>();
  for (const a of within(body, ['assignment'])) {
    const r = a.childForFieldName('right');
    const l = a.childForFieldName('left');
    if (r?.type === 'call' && isModelCall(calleeOf(r).text) && l?.type === 'identifier') out.add(l.text);
  }
  return out;
}

/** HR003 outputs-retained-on-gpu (off by default): predictions collected on the GPU grow with the dataset. */
export function hr003(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of anchored(ctx.root, /^[ \t]*(?:async[ \t]+)?(?<at>for)\b/m, ['for_statement'])) {
    if (!loop) continue;
    const f = loopFacts(loop);
    const body = loop.childForFieldName('body');
    if (!body || f.train || !f.step) continue; // an eval loop over data, not layers or micro-batches inside forward()
    const outs = outputs(body);
    for (const c of within(body, ['call'])) {
      const fn = c.childForFieldName('function');
      const obj = fn?.childForFieldName('object');
      const arg = c.childForFieldName('arguments')?.namedChild(0);
      if (fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'append' || obj?.type !== 'identifier' || !arg) continue;
      const root = arg.type === 'call' ? arg.childForFieldName('function')?.childForFieldName('object') : arg;
      if (!root || !outs.has(root.text.split('.')[0]!) || /\.(cpu|numpy|tolist|item)\(/.test(arg.text) || !growsAcrossSteps(obj.text, c, loop)) continue;
      out.push(
        findingAt('HR003', 'info', c, `\`${obj.text}\` collects model outputs on the GPU: device memory grows with the dataset until the loop ends. Move them to the host as they come.`, [
          { title: `Keep a host copy: ${arg.text}.detach().cpu()`, preferred: true, edits: [{ start: arg.startIndex, end: arg.endIndex, text: `${arg.text}.detach().cpu()` }] },
        ]),
      );
    }
  }
  return out;
}
