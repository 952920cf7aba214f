import type { SyntaxNode } from '../syntax/syntaxNode';
import { growsAcrossSteps } from '../analysis/growth';
import { ownedBy, stepLoops } from '../analysis/loops';
import { scopeOf } from '../analysis/scopes';
import { underNoGrad } from '../analysis/gradMode';
import { within } from '../syntax/nodeIndex';
import type { LoopFacts } from '../analysis/loops';
import { GradFlow, graphAtom } from '../analysis/gradFlow';
import { perBatchHooks, resetInHook } from '../analysis/hooks';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';
import { accumulations, partsOfBackpropagated } from '../analysis/accumulate';
import type { Accumulation } from '../analysis/accumulate';
import { objectState } from '../analysis/objectState';
import type { ObjectState } from '../analysis/objectState';
import { mayKeepInObject } from '../analysis/stores';

const PRIMARY = new Set(['identifier', 'call', 'attribute', 'subscript', 'parenthesized_expression']);

/** `v` → `v.item()` / `v.detach()`, parenthesized where the atom needs it. */
function rewrite(atom: SyntaxNode, method: 'item' | 'detach', ctx: RuleContext): Fix {
  const t = ctx.text.slice(atom.startIndex, atom.endIndex);
  const text = PRIMARY.has(atom.type) ? `${t}.${method}()` : `(${t}).${method}()`;
  return {
    title: method === 'item' ? `Accumulate a Python number: ${text}` : `Accumulate a detached tensor (no per-step sync): ${text}`,
    preferred: method === 'item',
    edits: [{ start: atom.startIndex, end: atom.endIndex, text }],
  };
}

function check(ctx: RuleContext, loop: LoopFacts, out: Finding[]): void {
  const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
  const body = loop.node.childForFieldName('body');
  if (!body) return;
  // A statement of a loop nested in this one is that loop's; with no accumulation of its own, no data flow to follow.
  const owned = ownedBy(loop, ctx.root);
  const backpropagated = (name: string) => loop.backward.some((c) => c.text.includes(name));
  const partOf = partsOfBackpropagated(body, backpropagated);
  if (
    !within(body, ['augmented_assignment', 'assignment', 'call']).some(
      (a) => owned(a) && ((a.type === 'call' && mayKeepInObject(a)) || accumulations(a, ctx.qualify).length),
    )
  )
    return;
  for (const { node: a, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
    if (noGrad(a) || !owned(a)) continue;
    if (a.type === 'call') {
      const o = objectState(a, loop.node, (x) => flow.carries(x), ctx.qualify, noGrad);
      // Once per place it is kept: six `meter.update(loss_i)` calls are one `self.sum += val * n`.
      if (o?.kind === 'add' && !out.some((f) => f.rule === 'HR001' && f.startIndex === (o.at ?? a).startIndex))
        out.push(viaObject(ctx, loop, a, o));
      for (const acc of accumulations(a, ctx.qualify)) checkOne(ctx, loop, a, acc, flow, backpropagated, partOf, out);
      continue;
    }
    for (const acc of accumulations(a, ctx.qualify)) checkOne(ctx, loop, a, acc, flow, backpropagated, partOf, out);
  }
}

function checkOne(
  ctx: RuleContext,
  loop: LoopFacts,
  a: SyntaxNode,
  acc: Accumulation,
  flow: GradFlow,
  backpropagated: (name: string) => boolean,
  partOf: (name: string) => boolean,
  out: Finding[],
): void {
  const atom = acc.added.map((x) => graphAtom(x, flow)).find((x) => !!x);
  if (!atom) {
    if (acc.added.length === 1 && !acc.joined) outsideStep(ctx, loop, a, { name: acc.name, rhs: acc.added[0]! }, flow, out);
    return;
  }
  if (acc.name.startsWith('self.') ? resetInHook(loop.node, acc.name) : !growsAcrossSteps(acc.name, a, loop.node)) return;
  const v = atom.text;
  const backedUp = backpropagated(v) || partOf(v);
  // A tensor joined onto the accumulator (`torch.cat([acc, out])`) stays a tensor: detach it.
  const fixes = acc.joined
    ? [{ ...rewrite(atom, 'detach', ctx), preferred: true }]
    : [rewrite(atom, 'item', ctx), rewrite(atom, 'detach', ctx)];
  const advice = acc.joined ? `Join \`${v}.detach()\`` : `Accumulate \`${v}.item()\` or \`${v}.detach()\``;
  const evidence = {
    line: a.startPosition.row,
    loopLine: loop.node.startPosition.row,
    loopEndLine: loop.node.endPosition.row,
    name: acc.name,
  };
  out.push(
    backedUp
      ? findingAt(
          'HR001',
          'warning',
          a,
          `\`${acc.name}\` accumulates \`${v}\`, which still has a grad_fn: the backward pass already freed its saved tensors, but each step's graph history stays reachable from \`${acc.name}\` until it is freed. ${advice}.`,
          fixes,
          evidence,
        )
      : findingAt(
          'HR001',
          'error',
          a,
          `\`${acc.name}\` accumulates \`${v}\`, which carries an autograd graph that is never backpropagated: every step's graph and its saved activations stay alive on the GPU until \`${acc.name}\` is freed. ${advice} (or run this loop under torch.no_grad()).`,
          fixes,
          evidence,
        ),
  );
}

/** `meter.update(loss)`: the object adds what it is given to its own state, once per step. */
function viaObject(ctx: RuleContext, loop: LoopFacts, call: SyntaxNode, o: ObjectState): Finding {
  const v = o.atom.text;
  const cost = loop.backward.length
    ? "each step's graph history stays reachable from it"
    : "each step's graph and its saved activations stay alive on the GPU";
  return findingAt(
    'HR001',
    loop.backward.length ? 'warning' : 'error',
    o.at ?? call,
    `\`${o.name}\` accumulates \`${v}\` (\`${o.how}\` adds it to the object's state${o.at ? `, called at line ${call.startPosition.row + 1} once per step of the loop at line ${loop.node.startPosition.row + 1}` : ''}), which still has a grad_fn: ${cost} for as long as \`${o.name}\` lives. Pass \`${v}.item()\` or \`${v}.detach()\`.`,
    [rewrite(o.atom, 'item', ctx), rewrite(o.atom, 'detach', ctx)],
    { line: (o.at ?? call).startPosition.row, loopLine: loop.node.startPosition.row, loopEndLine: loop.node.endPosition.row, name: o.name },
  );
}

/**
 * `total_loss += total` where `total` came from another file's training step (`train_util.train_step(...)`):
 * a float there is fine (the catalog's trap), so only when the code itself shows the sum is a tensor,
 * by calling `.item()` (or `.detach()`, `.cpu()`) on it. A warning: the helper may return detached values.
 */
function outsideStep(
  ctx: RuleContext,
  loop: LoopFacts,
  a: SyntaxNode,
  acc: { name: string; rhs: SyntaxNode },
  flow: GradFlow,
  out: Finding[],
): void {
  const v = acc.rhs;
  if (v.type !== 'identifier' || !flow.fromOutsideStep(v.text) || acc.name.startsWith('self.') || !growsAcrossSteps(acc.name, a, loop.node))
    return;
  const scope = scopeOf(loop.node);
  const esc = acc.name.replace(/[.]/g, '\\.');
  const shown = new RegExp(`(?<![\\w.])${esc}\\.(item|detach|cpu)\\(`).exec(ctx.text.slice(scope.startIndex, scope.endIndex));
  if (!shown) return;
  out.push(
    findingAt(
      'HR001',
      'warning',
      a,
      `\`${acc.name}\` accumulates \`${v.text}\`, returned by a training step defined in another file, and \`${acc.name}.${shown[1]}()\` shows the sum is a tensor: unless that step returns detached values, every step's graph stays reachable from \`${acc.name}\`. Accumulate \`${v.text}.item()\` or \`${v.text}.detach()\`.`,
      [rewrite(v, 'item', ctx), rewrite(v, 'detach', ctx)],
      { line: a.startPosition.row, loopLine: loop.node.startPosition.row, loopEndLine: loop.node.endPosition.row, name: acc.name },
    ),
  );
}

/** HR001 accumulate-grad-history: `total_loss += loss` in a step loop keeps graphs alive. */
export function hr001(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of stepLoops(ctx.root)) check(ctx, loop, out);
  // Lightning's training_step and its kin: `self.total += loss` adds up every batch the framework runs.
  for (const fn of perBatchHooks(ctx.root)) {
    const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
    const body = fn.childForFieldName('body');
    if (!body) continue;
    for (const { node: a, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
      // `self.losses.update([coarse, refine])`: a meter kept on the object adds each batch's losses.
      const o = a.type === 'call' && !noGrad(a) ? objectState(a, fn, (x) => flow.carries(x), ctx.qualify, noGrad) : undefined;
      if (
        o?.kind === 'add' &&
        o.name.startsWith('self.') &&
        !out.some((f) => f.rule === 'HR001' && f.startIndex === (o.at ?? a).startIndex)
      ) {
        out.push(
          findingAt(
            'HR001',
            'warning',
            o.at ?? a,
            `\`${o.name}\` accumulates \`${o.atom.text}\` (\`${o.how}\` adds it to the object's state) once per batch (the framework calls this method for every batch), which still has a grad_fn: each batch's graph history stays reachable from \`${o.name}\`. Pass \`.item()\` or \`.detach()\` values.`,
            [],
            { line: a.startPosition.row, loopLine: fn.startPosition.row, loopEndLine: fn.endPosition.row, name: o.name },
          ),
        );
      }
      for (const acc of a.type === 'call' ? [] : accumulations(a, ctx.qualify)) {
        if (!acc.name.startsWith('self.') || noGrad(a) || resetInHook(fn, acc.name)) continue;
        const atom = acc.added.map((x) => graphAtom(x, flow)).find((x) => !!x);
        if (!atom) continue;
        out.push(
          findingAt(
            'HR001',
            'warning',
            a,
            `\`${acc.name}\` accumulates \`${atom.text}\`, which still has a grad_fn, once per batch (the framework calls this method for every batch): each batch's graph history stays reachable from \`${acc.name}\`. Accumulate \`${atom.text}.item()\` or \`${atom.text}.detach()\`.`,
            [rewrite(atom, 'item', ctx), rewrite(atom, 'detach', ctx)],
            { line: a.startPosition.row, loopLine: fn.startPosition.row, loopEndLine: fn.endPosition.row, name: acc.name },
          ),
        );
      }
    }
  }
  return out;
}

export const HR001 = defineRule({
  id: 'HR001',
  name: 'accumulate-grad-history',
  severities: ['warning', 'error'],
  dependsOn: ['other-functions'],
  run: hr001,
});
