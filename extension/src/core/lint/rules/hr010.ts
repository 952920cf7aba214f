import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, anchored, qualifiedCallee } from '../syntax/nodeIndex';
import { enclosingLoop } from '../analysis/scopes';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { addArgument, keyword } from './kwargs';
import { defineRule } from './rule';

const FACTORIES = /^torch\.(tensor|zeros|ones|full|eye|arange|linspace|rand|randn|empty|zeros_like|ones_like)$/;

/** HR010 constant-tensor-moved-in-loop: made on the host, then copied to the GPU, every iteration. */
export function hr010(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  // Only a copy of a call's result: `torch.zeros(…).to(…)`, found from the text.
  for (const c of anchored(ctx.root, /\)\s*\.\s*(?<at>cuda|to)\s*\(/, ['call'])) {
    const f = c ? calleeOf(c).node : null;
    const method = f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
    const made = f?.childForFieldName('object');
    if (
      !c ||
      !f ||
      (method !== 'cuda' && method !== 'to') ||
      made?.type !== 'call' ||
      !FACTORIES.test(qualifiedCallee(made, ctx.qualify) ?? '')
    )
      continue;
    if (!enclosingLoop(c)) continue;
    if (keyword(made, 'device')) continue;
    const args = c.childForFieldName('arguments')!.namedChildren.filter((a): a is SyntaxNode => !!a);
    let device: string | undefined;
    if (method === 'cuda' && args.length === 0) device = '"cuda"';
    else if (method === 'to' && args.length === 1 && args[0]!.type !== 'keyword_argument') device = args[0]!.text;
    const fixes: Fix[] = [];
    if (device) {
      const add = addArgument(made, `device=${device}`, ctx);
      // Keep the factory call as written, with the device in it, and drop the copy after it.
      const factory = ctx.text.slice(made.startIndex, add.start) + add.text + ctx.text.slice(add.end, made.endIndex);
      fixes.push({
        title: `Create it on the device: device=${device}`,
        preferred: true,
        edits: [{ start: c.startIndex, end: c.endIndex, text: factory }],
      });
    }
    out.push(
      findingAt(
        'HR010',
        'info',
        c,
        `A tensor made on the host and copied to the GPU (.${method}()) on every iteration: a host allocation and a transfer each time. Create it on the device (device=…), or once before the loop.`,
        fixes,
      ),
    );
  }
  return out;
}

export const HR010 = defineRule({
  id: 'HR010',
  name: 'constant-tensor-moved-in-loop',
  severities: ['info'],
  dependsOn: [],
  run: hr010,
});
