import { scopeOf } from '../analysis/scopes';
import { anchored, calleeOf, callsNamed, qualifiedCallee } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { addArgument, keyword } from './kwargs';
import { defineRule } from './rule';

/** HR016 gpu-checkpoint-load-surge: `torch.load(p)` into `load_state_dict` puts a second copy of the weights on the GPU. */
export function hr016(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of callsNamed(ctx.root, ctx.bindings, ['load'])) {
    if (!c || qualifiedCallee(c, ctx.qualify) !== 'torch.load' || keyword(c, 'map_location')) continue;
    if ((c.childForFieldName('arguments')?.namedChildren.filter((a) => a?.type !== 'keyword_argument').length ?? 0) > 1) continue; // map_location given by position
    const a = c.parent?.type === 'assignment' ? c.parent : undefined;
    const name = a?.childForFieldName('left')?.type === 'identifier' ? a.childForFieldName('left')!.text : undefined;
    const word = name ? new RegExp(`^${name}\\b`) : undefined;
    const flows =
      (c.parent?.type === 'argument_list' && /load_state_dict$/.test(c.parent.parent?.childForFieldName('function')?.text ?? '')) ||
      (!!word &&
        anchored(scopeOf(c), /\bload_state_dict\b/, ['call']).some(
          (x) =>
            scopeOf(x).equals(scopeOf(c)) &&
            x.startIndex > c.startIndex &&
            /load_state_dict$/.test(calleeOf(x).text) &&
            word.test(x.childForFieldName('arguments')?.namedChild(0)?.text ?? ''),
        ));
    if (!flows) continue;
    out.push(
      findingAt(
        'HR016',
        'info',
        c,
        "torch.load without map_location restores tensors to the device they were saved from: the checkpoint lands on the GPU beside the model it is copied into, doubling the weights' memory for a moment (an OOM at resume time). Load to the CPU; load_state_dict copies to the model's device.",
        [{ title: 'Load to the CPU: map_location="cpu"', preferred: true, edits: [addArgument(c, 'map_location="cpu"', ctx)] }],
      ),
    );
  }
  return out;
}

export const HR016 = defineRule({
  id: 'HR016',
  name: 'gpu-checkpoint-load-surge',
  severities: ['info'],
  dependsOn: [],
  run: hr016,
});
