import { anchored, calleeOf, qualifiedCallee } from '../nodeIndex';
import { stepLoopOf } from '../facts';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword, removeArgument } from './kwargs';

/** HR013 retain-graph-in-loop: `backward(retain_graph=True)` with no second backward keeps every graph's buffers. */
export function hr013(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of anchored(ctx.root, /\bretain_graph\b/, ['call'])) {
    if (!c) continue;
    const isBackward = calleeOf(c).method === 'backward' || ['torch.autograd.backward', 'torch.autograd.grad'].includes(qualifiedCallee(c, ctx.qualify) ?? '');
    if (!isBackward) continue;
    const kw = keyword(c, 'retain_graph');
    if (kw?.childForFieldName('value')?.text !== 'True' || keyword(c, 'create_graph')) continue;
    const loop = stepLoopOf(c);
    if (!loop) continue;
    // A second backward later in the same iteration is what retain_graph is for (GANs, shared trunks).
    if (loop.backward.some((b) => b.startIndex > c.startIndex) || anchored(loop.node, /\bgrad\b/, ['call']).some((x) => x.startIndex > c.startIndex && /(^|\.)grad$/.test(calleeOf(x).text))) continue;
    out.push(
      findingAt('HR013', 'warning', kw, 'retain_graph=True with no second backward in this step keeps the graph\'s saved tensors alive until the graph itself is freed; without a reason to go through it again, it only raises the peak.', [
        { title: 'Remove retain_graph=True', preferred: true, edits: [removeArgument(kw, ctx)] },
      ]),
    );
  }
  return out;
}
