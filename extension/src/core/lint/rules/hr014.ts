import type { Node } from '@vscode/tree-sitter-wasm';
import { innermostStepLoops, isModelCall, underNoGrad } from '../facts';
import { calleeOf, within } from '../nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';

/** HR014 rnn-hidden-not-detached: a hidden state fed back across steps chains every step's graph. */
export function hr014(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const torch = ctx.torch;
  for (const loop of innermostStepLoops(ctx.root)) {
    const body = loop.node.childForFieldName('body');
    // Without a backward in the loop the chain is never freed at all (a forward-only rollout or
    // generation loop): a leak unless grad is off.
    if (!body || (!loop.backward.length && underNoGrad(loop.node, ctx.qualify))) continue;
    const assigns = within(body, ['assignment']);
    for (const a of assigns) {
      const left = a.childForFieldName('left');
      const right = a.childForFieldName('right');
      if (left?.type !== 'pattern_list' || right?.type !== 'call' || !isModelCall(calleeOf(right).text)) continue;
      const args = right.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x?.type === 'identifier') ?? [];
      const h = left.namedChildren.find((l) => l?.type === 'identifier' && args.some((x) => x.text === l.text));
      if (!h) continue;
      // Detached, repackaged or re-initialised elsewhere in the step: bounded.
      if (assigns.some((b) => !b.equals(a) && b.childForFieldName('left')?.text === h.text)) continue;
      const first = body.namedChild(0)!;
      const lineStart = ctx.text.lastIndexOf('\n', first.startIndex - 1) + 1;
      const indent = ctx.text.slice(lineStart, first.startIndex);
      const fix = torch && /^\s*$/.test(indent)
        ? [{ title: `Detach ${h.text} at the start of each step`, preferred: true, edits: [{ start: lineStart, end: lineStart, text: `${indent}${h.text} = ${h.text}.detach() if isinstance(${h.text}, ${torch}.Tensor) else tuple(t.detach() for t in ${h.text})\n` }] }]
        : [];
      out.push(
        findingAt('HR014', 'warning', h, `\`${h.text}\` comes out of the model and goes back in on the next step without .detach(): each step's graph hangs on to the previous one, so memory (and backward time) grows with the number of steps. Detach it at the start of each step (word_language_model's repackage_hidden).`, fix, {
          line: a.startPosition.row,
          loopLine: loop.node.startPosition.row,
          name: h.text,
        }),
      );
    }
  }
  return out;
}
