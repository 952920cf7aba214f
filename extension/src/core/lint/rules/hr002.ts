import type { SyntaxNode } from '../syntax/syntaxNode';
import { within } from '../syntax/nodeIndex';
import { growsAcrossSteps } from '../analysis/growth';
import { ownedBy, stepLoops } from '../analysis/loops';
import { underNoGrad } from '../analysis/gradMode';
import { GradFlow, graphAtom } from '../analysis/gradFlow';
import { perBatchHooks, resetInHook } from '../analysis/hooks';
import { helperStores } from '../analysis/helperStores';
import { mayKeepInObject, passesToHelper, stored } from '../analysis/stores';
import { objectState } from '../analysis/objectState';
import { graphEntries, stepOutputsKept } from '../analysis/stepOutputs';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

const PRIMARY = new Set(['identifier', 'call', 'attribute', 'subscript', 'parenthesized_expression']);

function wrap(atom: SyntaxNode, suffix: string, title: string, preferred: boolean): Fix {
  const t = atom.text;
  const text = PRIMARY.has(atom.type) ? `${t}${suffix}` : `(${t})${suffix}`;
  return { title: `${title}: ${text}`, preferred, edits: [{ start: atom.startIndex, end: atom.endIndex, text }] };
}

function report(n: SyntaxNode, s: { name: string }, atom: SyntaxNode, cost: string, where: { line: number; end: number }): Finding {
  const scalar = /loss|cost|err/i.test(atom.text);
  const fixes = scalar
    ? [wrap(atom, '.item()', 'Store a Python number', true), wrap(atom, '.detach()', 'Store a detached tensor', false)]
    : [
        wrap(atom, '.detach()', 'Store a detached tensor', true),
        wrap(atom, '.detach().cpu()', 'Store a detached copy in host memory', false),
      ];
  return findingAt(
    'HR002',
    'warning',
    n,
    `\`${s.name}\` keeps \`${atom.text}\`, which still has a grad_fn: ${cost} stays alive for as long as \`${s.name}\` does. Store \`${atom.text}${scalar ? '.item()' : '.detach()'}\` instead.`,
    fixes,
    {
      line: n.startPosition.row,
      loopLine: where.line,
      loopEndLine: where.end,
      name: s.name,
    },
  );
}

/** HR002 store-grad-tensor-in-container: `losses.append(loss)` in a step loop keeps every graph. */
export function hr002(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
  const seen = new Set<number>();
  for (const loop of stepLoops(ctx.root)) {
    const body = loop.node.childForFieldName('body');
    if (!body) continue;
    // A statement of a loop nested in this one is that loop's; with nothing stored of its own, no data flow to follow.
    const owned = ownedBy(loop, ctx.root);
    // With nothing stored of its own and no call that may store for it (two or more values to a helper of this file), no data flow to follow.
    if (
      !within(body, ['call', 'augmented_assignment', 'assignment']).some(
        (n) => owned(n) && (stored(n) || passesToHelper(n) || mayKeepInObject(n)),
      )
    )
      continue;
    for (const { node: n, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
      const s = stored(n);
      if (!s && n.type === 'call' && owned(n) && !noGrad(n)) {
        const o = objectState(n, loop.node, (x) => flow.carries(x), ctx.qualify, noGrad);
        if (o?.kind === 'store' && !out.some((f) => f.startIndex === (o.at ?? n).startIndex))
          out.push(
            report(
              o.at ?? n,
              o,
              o.atom,
              `\`${o.how}\` stores it in the object's state once per step, so ${loop.train ? "each step's graph history" : "each step's graph with its saved activations"}`,
              { line: loop.node.startPosition.row, end: loop.node.endPosition.row },
            ),
          );
        for (const h of helperStores(ctx, loop, n, (arg) => flow.carries(arg))) {
          if (seen.has(h.node.id)) continue;
          seen.add(h.node.id);
          out.push(
            report(
              h.node,
              h,
              h.atom,
              `this helper runs once per step of the loop at line ${loop.node.startPosition.row + 1}, so ${loop.train ? "each step's graph history" : "each step's graph with its saved activations"}`,
              { line: loop.node.startPosition.row, end: loop.node.endPosition.row },
            ),
          );
        }
      }
      if (!s || noGrad(n) || !owned(n)) continue;
      const atom = graphAtom(s.value, flow);
      if (!atom || !(s.name.startsWith('self.') ? !resetInHook(loop.node, s.name) : growsAcrossSteps(s.name, n, loop.node))) continue;
      out.push(
        report(n, s, atom, loop.train ? "each step's graph history" : "each step's graph with its saved activations", {
          line: loop.node.startPosition.row,
          end: loop.node.endPosition.row,
        }),
      );
    }
  }
  // A framework's per-batch method (Lightning's training_step): the loop is the framework's, and `self` outlives each call.
  for (const fn of perBatchHooks(ctx.root)) {
    const body = fn.childForFieldName('body');
    if (!body) continue;
    for (const { node: n, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
      const s = stored(n);
      if (!s || !s.name.startsWith('self.') || noGrad(n) || resetInHook(fn, s.name)) continue;
      const atom = graphAtom(s.value, flow);
      if (atom)
        out.push(
          report(n, s, atom, "each batch's graph (the framework calls this once per batch)", {
            line: fn.startPosition.row,
            end: fn.endPosition.row,
          }),
        );
    }
  }
  // Lightning 1.x keeps every batch's training_step output for training_epoch_end: entries beside "loss" keep their graphs.
  for (const fn of perBatchHooks(ctx.root)) {
    if (!stepOutputsKept(fn)) continue;
    for (const { ret, values } of graphEntries(fn, ctx.qualify, noGrad)) {
      const names = values.map((v) => `\`${v.text}\``).join(', ');
      out.push(
        findingAt(
          'HR002',
          'warning',
          ret,
          `training_step returns ${names} beside "loss", which still ${values.length > 1 ? 'have' : 'has'} a grad_fn: Lightning keeps every batch's output for training_epoch_end and detaches only "loss", so each batch's graph stays alive until the epoch ends. Return ${values.map((v) => `\`${v.text}.detach()\``).join(', ')}.`,
          [
            {
              title: 'Return the other entries detached',
              preferred: true,
              edits: values.flatMap((v) => wrap(v, '.detach()', '', true).edits),
            },
          ],
          { line: ret.startPosition.row, loopLine: fn.startPosition.row, loopEndLine: fn.endPosition.row, name: 'training_epoch_end' },
        ),
      );
    }
  }
  return out;
}

export const HR002 = defineRule({
  id: 'HR002',
  name: 'store-grad-tensor-in-container',
  severities: ['warning'],
  dependsOn: ['other-functions'],
  run: hr002,
});
