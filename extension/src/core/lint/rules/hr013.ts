import type { SyntaxNode } from '../syntax/syntaxNode';
import { anchored, calleeOf, qualifiedCallee, within } from '../syntax/nodeIndex';
import { stepLoopOf } from '../analysis/loops';
import { enclosingLoop, scopeOf } from '../analysis/scopes';
import { callersOf } from '../analysis/callers';
import { backwardTarget } from '../analysis/gradFlow';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword, removeArgument } from './kwargs';
import { defineRule } from './rule';

/** The name a backward starts from: `loss` in `loss[k].sum().backward()`, `part` in `torch.autograd.backward(part)`. */
function graphName(c: SyntaxNode): string | undefined {
  let e = backwardTarget(c);
  while (e && e.type !== 'identifier') {
    if (e.type === 'call') e = e.childForFieldName('function');
    else if (e.type === 'attribute') e = e.childForFieldName('object');
    else if (e.type === 'subscript' || e.type === 'parenthesized_expression')
      e = e.type === 'subscript' ? e.childForFieldName('value') : e.namedChild(0);
    else return undefined;
  }
  return e?.text;
}

/** Whether the graph `c` goes through was built before `loop`: its name is never assigned in the loop's body. */
function builtBefore(c: SyntaxNode, loop: SyntaxNode): boolean {
  const name = graphName(c);
  const body = loop.childForFieldName('body');
  if (!name || !body) return false;
  const binds = (left: SyntaxNode | null): boolean =>
    !!left && (left.type === 'identifier' ? left.text === name : left.namedChildren.some((x) => binds(x)));
  return !within(body, ['assignment', 'augmented_assignment']).some((a) => binds(a.childForFieldName('left')));
}

/**
 * The function around `c` when it runs once per step: named for it (`_train_step`, `training_step`),
 * an optimizer's closure (`def closure(): …; return closure`), or a function a step loop of this
 * file calls.
 */
function perStepFunction(c: SyntaxNode): SyntaxNode | undefined {
  const fn = scopeOf(c);
  if (fn.type !== 'function_definition') return undefined;
  const name = fn.childForFieldName('name')?.text ?? '';
  const callers = callersOf(fn);
  // A caller's step that goes on to another backward (a GAN's generator after `self._update_d(…)`) is what it retains the graph for.
  if (
    callers.some((k) =>
      anchored(enclosingLoop(k) ?? scopeOf(k), /\bbackward\b/, ['call']).some(
        (b) => b.startIndex > k.startIndex && calleeOf(b).method === 'backward',
      ),
    )
  )
    return undefined;
  if (/^_*\w*(step|closure)$/.test(name)) return fn;
  // Called once per step of a loop (not from a walk over layers: a reversible network's own backward).
  return callers.some((k) => !!stepLoopOf(k)) ? fn : undefined;
}

/** HR013 retain-graph-in-loop: `backward(retain_graph=True)` with no second backward keeps every graph's buffers. */
export function hr013(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of anchored(ctx.root, /\bretain_graph\b/, ['call'])) {
    if (!c) continue;
    const isBackward =
      calleeOf(c).method === 'backward' ||
      ['torch.autograd.backward', 'torch.autograd.grad'].includes(qualifiedCallee(c, ctx.qualify) ?? '');
    if (!isBackward) continue;
    const kw = keyword(c, 'retain_graph');
    if (kw?.childForFieldName('value')?.text !== 'True' || keyword(c, 'create_graph')) continue;
    const loop = stepLoopOf(c);
    // Or the step is a function of its own: a `*_step` method, an optimizer's closure, a function a step loop of this file calls.
    const step = loop?.node ?? perStepFunction(c);
    if (!step) continue;
    // A second backward later in the same iteration is what retain_graph is for (GANs, shared trunks).
    const later = (x: SyntaxNode) => x.startIndex > c.startIndex;
    if (
      anchored(step, /\bbackward\b/, ['call']).some((b) => later(b) && calleeOf(b).method === 'backward') ||
      anchored(step, /\bgrad\b/, ['call']).some((x) => later(x) && /(^|\.)grad$/.test(calleeOf(x).text))
    )
      continue;
    // So is a loop over the parts of a graph built before it: the next pass goes through it again.
    if (loop && builtBefore(c, loop.node)) continue;
    out.push(
      findingAt(
        'HR013',
        'warning',
        kw,
        "retain_graph=True with no second backward in this step keeps the graph's saved tensors alive until the graph itself is freed; without a reason to go through it again, it only raises the peak.",
        [{ title: 'Remove retain_graph=True', preferred: true, edits: [removeArgument(kw, ctx)] }],
      ),
    );
  }
  return out;
}

export const HR013 = defineRule({
  id: 'HR013',
  name: 'retain-graph-in-loop',
  severities: ['warning'],
  dependsOn: ['other-functions'],
  run: hr013,
});
