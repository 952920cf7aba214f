import { isModelCall } from '../analysis/calls';
import { calleeOf, nodesOf, within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { defineRule } from './rule';

const OOM = new Set(['torch.cuda.OutOfMemoryError', 'torch.OutOfMemoryError']);

/** HR015 oom-retry-in-except: retrying inside `except` keeps the failed attempt's tensors (the traceback holds its frames). */
export function hr015(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const ex of nodesOf(ctx.root, 'except_clause')) {
    if (!ex) continue;
    const types = ex.namedChildren.filter((c) => c && c.type !== 'block' && c.type !== 'comment');
    const names = types
      .flatMap((t) => (t!.type === 'as_pattern' ? [t!.namedChild(0)] : [t]))
      .flatMap((t) => (t?.type === 'tuple' ? t.namedChildren : [t]));
    if (!names.some((n) => n && (n.text === 'RuntimeError' || OOM.has(ctx.qualify(n) ?? '')))) continue;
    const body = ex.namedChildren.find((c) => c?.type === 'block');
    const retry = body
      ? within(body, ['call']).find((c) => {
          const t = calleeOf(c).text;
          return isModelCall(t) || /(^|\.)(train\w*|\w*_step|forward)$/.test(t);
        })
      : undefined;
    if (!retry) continue;
    out.push(
      findingAt(
        'HR015',
        'warning',
        retry,
        "Retrying inside the except block: the exception's traceback still references the failed attempt's frames, so its tensors cannot be freed and the retry runs on top of them. Set a flag in the except block and retry after it (PyTorch FAQ).",
        [],
      ),
    );
  }
  return out;
}

export const HR015 = defineRule({
  id: 'HR015',
  name: 'oom-retry-in-except',
  severities: ['warning'],
  dependsOn: [],
  run: hr015,
});
