import type { SyntaxNode } from '../syntax/syntaxNode';
import { innermostStepLoops, loopFacts } from '../analysis/loops';
import { isModelCall, MAY_CALL_MODEL, modelSuffix } from '../analysis/calls';
import { underNoGrad } from '../analysis/gradMode';
import { forwardOnly } from '../analysis/inferenceLoop';
import type { LoopFacts } from '../analysis/loops';
import { calleeOf, nodesOf, within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { defineRule } from './rule';

/** Names a loop binds each pass: its own target and the targets of loops nested in it. */
function loopBound(loop: SyntaxNode): Set<string> {
  const out = new Set<string>();
  for (const l of [loop, ...within(loop.childForFieldName('body') ?? loop, ['for_statement'])])
    for (const w of l.childForFieldName('left')?.text.match(/[A-Za-z_]\w*/g) ?? []) out.add(w);
  return out;
}

/** Whether the body changes `name` in place with a trailing-underscore method (`x.fill_(…)`, `x.data.copy_(…)`). */
function changedInPlace(body: SyntaxNode, name: string): boolean {
  const re = new RegExp(`^${name}(\\.data)?\\.\\w+_$`);
  return within(body, ['call']).some((c) => re.test(calleeOf(c).text));
}

/** HR014 rnn-hidden-not-detached: a hidden state fed back across steps chains every step's graph. */
export function hr014(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const torch = ctx.torch;
  // Step loops, and forward-only generation loops (not step loops: `for t in range(n)`), which never free the chain.
  const rollouts = nodesOf(ctx.root, ['for_statement', 'while_statement'])
    .map(loopFacts)
    .filter((f) => !f.step);
  const loops: { loop: LoopFacts; rollout: boolean }[] = [
    ...innermostStepLoops(ctx.root).map((loop) => ({ loop, rollout: false })),
    ...rollouts.map((loop) => ({ loop, rollout: true })),
  ];
  for (const { loop, rollout } of loops) {
    const body = loop.node.childForFieldName('body');
    // Without a backward in the loop the chain is never freed at all (a forward-only rollout or
    // generation loop): a leak unless grad is off.
    if (!body || !MAY_CALL_MODEL.test(body.text) || (!loop.backward.length && underNoGrad(loop.node, ctx.qualify))) continue;
    const assigns = within(body, ['assignment']);
    for (const a of assigns) {
      const left = a.childForFieldName('left');
      const right = a.childForFieldName('right');
      // `out, h = model(x, h)`, or the state alone: `h = self.rssm.recurrent_model(z, a, h)`.
      if (
        (left?.type !== 'pattern_list' && left?.type !== 'identifier') ||
        right?.type !== 'call' ||
        !(isModelCall(calleeOf(right).text) || modelSuffix(calleeOf(right).text.replace(/^self\.\w+\./, 'self.'))) ||
        underNoGrad(a, ctx.qualify)
      )
        continue;
      const args = right.childForFieldName('arguments')?.namedChildren.filter((x): x is SyntaxNode => x?.type === 'identifier') ?? [];
      const h = (left.type === 'identifier' ? [left] : left.namedChildren).find(
        (l) => l?.type === 'identifier' && args.some((x) => x.text === l.text),
      );
      // A name the loop itself binds each pass (`for x in loader: x = net(x)`) starts afresh every step.
      if (!h || loopBound(loop.node).has(h.text)) continue;
      // The state alone, in a step loop: only where the loop itself back-propagates each step (truncated BPTT), not
      // a loop over time steps inside one batch (`for t in range(batch_length)`) whose chain one backward after it frees.
      if (left.type === 'identifier' && !rollout && !loop.backward.length) continue;
      // Detached, repackaged or re-initialised elsewhere in the step: bounded.
      if (assigns.some((b) => !b.equals(a) && b.childForFieldName('left')?.text === h.text)) continue;
      // Detached in place anywhere in the step (`h.detach_()`, `h[0].detach_()`: pytorch/examples' rpc rnn).
      const inPlace = new RegExp(`^${h.text}(\\s*\\[[^\\]]*\\])?\\s*\\.\\s*detach_$`);
      if (within(body, ['call']).some((c) => inPlace.test(calleeOf(c).text))) continue;
      // A generation loop feeds its own output back as the next input too (`inp = top_i`); a loop
      // over given inputs (priming on a prompt) is bounded by them.
      // (or changes it in place: `input.data.fill_(word_idx)`, `x[:, t] = tok`).
      if (
        rollout &&
        !args.some(
          (x) =>
            x.text !== h.text &&
            (assigns.some(
              (b) =>
                !b.equals(a) &&
                (b.childForFieldName('left')?.text === x.text || b.childForFieldName('left')?.text.startsWith(`${x.text}[`)),
            ) ||
              changedInPlace(body, x.text)),
        )
      )
        continue;
      // A rollout whose states are trained on (a world model's imagined steps, a decoder's teacher-forced steps) frees the chain in that backward.
      if (rollout && !forwardOnly(loop.node, ctx.qualify, (n) => underNoGrad(n, ctx.qualify))) continue;
      const first = body.namedChild(0)!;
      const lineStart = ctx.text.lastIndexOf('\n', first.startIndex - 1) + 1;
      const indent = ctx.text.slice(lineStart, first.startIndex);
      const fix =
        torch && /^\s*$/.test(indent)
          ? [
              {
                title: `Detach ${h.text} at the start of each step`,
                preferred: true,
                edits: [
                  {
                    start: lineStart,
                    end: lineStart,
                    text: `${indent}${h.text} = ${h.text}.detach() if isinstance(${h.text}, ${torch}.Tensor) else tuple(t.detach() for t in ${h.text})\n`,
                  },
                ],
              },
            ]
          : [];
      out.push(
        findingAt(
          'HR014',
          'warning',
          h,
          `\`${h.text}\` comes out of the model and goes back in on the next step without .detach(): each step's graph hangs on to the previous one, so memory (and backward time) grows with the number of steps. Detach it at the start of each step (word_language_model's repackage_hidden).`,
          fix,
          {
            line: a.startPosition.row,
            loopLine: loop.node.startPosition.row,
            name: h.text,
          },
        ),
      );
    }
  }
  return out;
}

export const HR014 = defineRule({
  id: 'HR014',
  name: 'rnn-hidden-not-detached',
  severities: ['warning'],
  dependsOn: [],
  run: hr014,
});
