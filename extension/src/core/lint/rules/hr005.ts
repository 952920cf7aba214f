import type { SyntaxNode } from '../syntax/syntaxNode';
import { callsNamed, qualifiedCallee } from '../syntax/nodeIndex';
import { enclosingLoop } from '../analysis/scopes';
import { guarded } from '../analysis/guards';
import { innermostStepLoops, stepLoopOf } from '../analysis/loops';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

const EMPTY_CACHE = new Set(['torch.cuda.empty_cache', 'torch.cuda.memory.empty_cache']);

/** Removes the statement: its whole line when it stands alone there, else `pass` in its place. */
function removal(st: SyntaxNode, ctx: RuleContext): Fix {
  const block = st.parent;
  const alone = (block?.namedChildren.filter((c) => c && c.type !== 'comment').length ?? 0) <= 1;
  const lineStart = ctx.text.lastIndexOf('\n', st.startIndex - 1) + 1;
  const nl = ctx.text.indexOf('\n', st.endIndex);
  const lineEnd = nl < 0 ? ctx.text.length : nl + 1;
  const ownLine = /^\s*$/.test(ctx.text.slice(lineStart, st.startIndex)) && /^\s*$/.test(ctx.text.slice(st.endIndex, lineEnd));
  const edit = !alone && ownLine ? { start: lineStart, end: lineEnd, text: '' } : { start: st.startIndex, end: st.endIndex, text: 'pass' };
  return { title: 'Remove the empty_cache() call from the loop', preferred: true, edits: [edit] };
}

/** HR005 empty-cache-in-step-loop: `torch.cuda.empty_cache()` every step only slows training. */
export function hr005(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of callsNamed(ctx.root, ctx.bindings, ['empty_cache'])) {
    if (!c || !EMPTY_CACHE.has(qualifiedCallee(c, ctx.qualify) ?? '')) continue;
    // Once per epoch (in a loop around the step loop, not in it) is not every step.
    const inner = stepLoopOf(c);
    const loop = inner && !innermostStepLoops(ctx.file).some((l) => l.node.equals(inner.node)) ? undefined : inner;
    const st = c.parent?.type === 'expression_statement' ? c.parent : undefined;
    if (loop) {
      if (guarded(c, loop.node)) continue;
      out.push(
        findingAt(
          'HR005',
          'warning',
          c,
          'empty_cache() on every step returns cached blocks to CUDA only for the allocator to cudaMalloc them again on the next step: it slows training and lowers no peak. If fragmentation is the problem, try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.',
          st ? [removal(st, ctx)] : [],
        ),
      );
    } else if (c.parent?.type === 'expression_statement' && !!enclosingLoop(c)) {
      out.push(
        findingAt(
          'HR005',
          'info',
          c,
          'empty_cache() in a loop: it frees no memory tensors still use, and costs a cudaMalloc for every block needed again.',
          [],
        ),
      );
    }
  }
  return out;
}

export const HR005 = defineRule({
  id: 'HR005',
  name: 'empty-cache-in-step-loop',
  severities: ['info', 'warning'],
  dependsOn: [],
  run: hr005,
});
