import { calleeOf, callsNamed } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword, removeArgument } from './kwargs';
import { defineRule } from './rule';

/** HR008 zero-grad-writes-zeros: `zero_grad(set_to_none=False)` keeps every gradient allocated and writes zeros into it. */
export function hr008(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of callsNamed(ctx.root, ctx.bindings, ['zero_grad'])) {
    const f = c ? calleeOf(c).node : null;
    if (!c || f?.type !== 'attribute' || f.childForFieldName('attribute')?.text !== 'zero_grad') continue;
    const kw = keyword(c, 'set_to_none');
    if (kw?.childForFieldName('value')?.text !== 'False') continue;
    out.push(
      findingAt(
        'HR008',
        'info',
        c,
        'zero_grad(set_to_none=False) keeps every .grad tensor allocated between steps and spends a kernel writing zeros into it; the default (None) frees them until backward() needs them again.',
        [{ title: 'Remove set_to_none=False (the default sets grads to None)', preferred: true, edits: [removeArgument(kw, ctx)] }],
      ),
    );
  }
  return out;
}

export const HR008 = defineRule({
  id: 'HR008',
  name: 'zero-grad-writes-zeros',
  severities: ['info'],
  dependsOn: [],
  run: hr008,
});
