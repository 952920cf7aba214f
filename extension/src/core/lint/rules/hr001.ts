import type { SyntaxNode } from '../syntax/syntaxNode';
import { growsAcrossSteps } from '../analysis/growth';
import { ownedBy, stepLoops } from '../analysis/loops';
import { scopeOf } from '../analysis/scopes';
import { underNoGrad } from '../analysis/gradMode';
import { within } from '../syntax/nodeIndex';
import type { LoopFacts } from '../analysis/loops';
import { GradFlow, graphAtom } from '../analysis/gradFlow';
import { perBatchHooks, resetInHook, selfAttribute } from '../analysis/hooks';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

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

/** The accumulator's name: `acc` in `acc += …`, `acc[k] += …`, `acc = acc + …`. */
function accumulator(a: SyntaxNode): { name: string; rhs: SyntaxNode } | undefined {
  const left = a.childForFieldName('left');
  const right = a.childForFieldName('right');
  if (!left || !right) return undefined;
  if (a.type === 'augmented_assignment') {
    if (a.childForFieldName('operator')?.text !== '+=') return undefined;
    const base = left.type === 'subscript' ? left.childForFieldName('value') : left;
    return base?.type === 'identifier' || selfAttribute(base) ? { name: base!.text, rhs: right } : undefined;
  }
  if (left.type === 'identifier' && right.type === 'binary_operator' && right.childForFieldName('operator')?.text === '+') {
    const l = right.childForFieldName('left');
    if (l?.type === 'identifier' && l.text === left.text) return { name: left.text, rhs: right.childForFieldName('right')! };
  }
  return undefined;
}

/**
 * Whether `name` was unpacked with a name that is back-propagated (`loss, mf = model.bpr_loss(…)`,
 * then `loss.backward()`): the parts of one loss share its graph, whose saved tensors backward freed.
 */
function partOfBackpropagated(body: SyntaxNode, name: string, backpropagated: (n: string) => boolean): boolean {
  return within(body, ['assignment']).some((a) => {
    const left = a.childForFieldName('left');
    if (left?.type !== 'pattern_list' && left?.type !== 'tuple_pattern') return false;
    const names = left.namedChildren.filter((n) => n?.type === 'identifier').map((n) => n!.text);
    return names.includes(name) && names.some((n) => n !== name && backpropagated(n));
  });
}

function check(ctx: RuleContext, loop: LoopFacts, out: Finding[]): void {
  const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
  const body = loop.node.childForFieldName('body');
  if (!body) return;
  // A statement of a loop nested in this one is that loop's; with no accumulation of its own, no data flow to follow.
  const owned = ownedBy(loop, ctx.root);
  const backpropagated = (name: string) => loop.backward.some((c) => c.text.includes(name));
  if (!within(body, ['augmented_assignment', 'assignment']).some((a) => owned(a) && accumulator(a))) return;
  for (const { node: a, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
    if (a.type === 'call') continue;
    const acc = accumulator(a);
    if (!acc || noGrad(a) || !owned(a)) continue;
    const atom = graphAtom(acc.rhs, flow);
    if (!atom) {
      outsideStep(ctx, loop, a, acc, flow, out);
      continue;
    }
    if (acc.name.startsWith('self.') ? resetInHook(loop.node, acc.name) : !growsAcrossSteps(acc.name, a, loop.node)) continue;
    const v = atom.text;
    const backedUp = backpropagated(v) || partOfBackpropagated(body, v, backpropagated);
    const fixes = [rewrite(atom, 'item', ctx), rewrite(atom, 'detach', ctx)];
    const evidence = { line: a.startPosition.row, loopLine: loop.node.startPosition.row, loopEndLine: loop.node.endPosition.row, name: acc.name };
    if (backedUp) {
      out.push(
        findingAt('HR001', 'warning', a, `\`${acc.name}\` accumulates \`${v}\`, which still has a grad_fn: the backward pass already freed its saved tensors, but each step's graph history stays reachable from \`${acc.name}\` until it is freed. Accumulate \`${v}.item()\` or \`${v}.detach()\`.`, fixes, evidence),
      );
    } else {
      out.push(
        findingAt('HR001', 'error', a, `\`${acc.name}\` accumulates \`${v}\`, which carries an autograd graph that is never backpropagated: every step's graph and its saved activations stay alive on the GPU until \`${acc.name}\` is freed. Accumulate \`${v}.item()\` or \`${v}.detach()\` (or run this loop under torch.no_grad()).`, fixes, evidence),
      );
    }
  }
}

/**
 * `total_loss += total` where `total` came from another file's training step (`train_util.train_step(...)`):
 * a float there is fine (the catalog's trap), so only when the code itself shows the sum is a tensor,
 * by calling `.item()` (or `.detach()`, `.cpu()`) on it. A warning: the helper may return detached values.
 */
function outsideStep(ctx: RuleContext, loop: LoopFacts, a: SyntaxNode, acc: { name: string; rhs: SyntaxNode }, flow: GradFlow, out: Finding[]): void {
  const v = acc.rhs;
  if (v.type !== 'identifier' || !flow.fromOutsideStep(v.text) || acc.name.startsWith('self.') || !growsAcrossSteps(acc.name, a, loop.node)) return;
  const scope = scopeOf(loop.node);
  const esc = acc.name.replace(/[.]/g, '\\.');
  const shown = new RegExp(`(?<![\\w.])${esc}\\.(item|detach|cpu)\\(`).exec(ctx.text.slice(scope.startIndex, scope.endIndex));
  if (!shown) return;
  out.push(
    findingAt('HR001', 'warning', a, `\`${acc.name}\` accumulates \`${v.text}\`, returned by a training step defined in another file, and \`${acc.name}.${shown[1]}()\` shows the sum is a tensor: unless that step returns detached values, every step's graph stays reachable from \`${acc.name}\`. Accumulate \`${v.text}.item()\` or \`${v.text}.detach()\`.`, [rewrite(v, 'item', ctx), rewrite(v, 'detach', ctx)], { line: a.startPosition.row, loopLine: loop.node.startPosition.row, loopEndLine: loop.node.endPosition.row, name: acc.name }),
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
      const acc = a.type === 'call' ? undefined : accumulator(a);
      if (!acc || !acc.name.startsWith('self.') || noGrad(a) || resetInHook(fn, acc.name)) continue;
      const atom = graphAtom(acc.rhs, flow);
      if (!atom) continue;
      out.push(
        findingAt('HR001', 'warning', a, `\`${acc.name}\` accumulates \`${atom.text}\`, which still has a grad_fn, once per batch (the framework calls this method for every batch): each batch's graph history stays reachable from \`${acc.name}\`. Accumulate \`${atom.text}.item()\` or \`${atom.text}.detach()\`.`, [rewrite(atom, 'item', ctx), rewrite(atom, 'detach', ctx)], { line: a.startPosition.row, loopLine: fn.startPosition.row, loopEndLine: fn.endPosition.row, name: acc.name }),
      );
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
