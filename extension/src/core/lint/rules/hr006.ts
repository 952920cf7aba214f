import { callsNamed, qualifiedCallee } from '../syntax/nodeIndex';
import { versionGuarded } from '../analysis/guards';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { addArgument, keyword } from './kwargs';
import { defineRule } from './rule';

const CHECKPOINT = new Set(['torch.utils.checkpoint.checkpoint', 'torch.utils.checkpoint.checkpoint_sequential']);

/** HR006 checkpoint-use-reentrant: say `use_reentrant` explicitly (the default is changing; False is the recommended one). */
export function hr006(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of callsNamed(ctx.root, ctx.bindings, ['checkpoint', 'checkpoint_sequential'])) {
    if (!c || !CHECKPOINT.has(qualifiedCallee(c, ctx.qualify) ?? '')) continue;
    const args = c.childForFieldName('arguments');
    if (!args || versionGuarded(c) || keyword(c, 'use_reentrant')) continue;
    if (args.namedChildren.some((a) => a?.type === 'dictionary_splat')) continue; // **kwargs may carry it
    out.push(
      findingAt(
        'HR006',
        'warning',
        c,
        'checkpoint() without use_reentrant: PyTorch warns and will change the default; the non-reentrant variant (use_reentrant=False) is the recommended one and supports more (keyword arguments, nested checkpoints, inputs without grad).',
        [{ title: 'Add use_reentrant=False', preferred: true, edits: [addArgument(c, 'use_reentrant=False', ctx)] }],
      ),
    );
  }
  return out;
}

export const HR006 = defineRule({
  id: 'HR006',
  name: 'checkpoint-use-reentrant',
  severities: ['warning'],
  dependsOn: [],
  run: hr006,
});
