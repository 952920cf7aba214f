import type { Node } from '@vscode/tree-sitter-wasm';
import { growsAcrossSteps, innermostStepLoops, underNoGrad } from '../facts';
import type { LoopFacts } from '../facts';
import { GradFlow, graphAtom } from '../gradFlow';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';

const PRIMARY = new Set(['identifier', 'call', 'attribute', 'subscript', 'parenthesized_expression']);

/** `v` → `v.item()` / `v.detach()`, parenthesized where the atom needs it. */
function rewrite(atom: Node, method: 'item' | 'detach', ctx: RuleContext): Fix {
  const t = ctx.text.slice(atom.startIndex, atom.endIndex);
  const text = PRIMARY.has(atom.type) ? `${t}.${method}()` : `(${t}).${method}()`;
  return {
    title: method === 'item' ? `Accumulate a Python number: ${text}` : `Accumulate a detached tensor (no per-step sync): ${text}`,
    preferred: method === 'item',
    edits: [{ start: atom.startIndex, end: atom.endIndex, text }],
  };
}

/** The accumulator's name: `acc` in `acc += …`, `acc[k] += …`, `acc = acc + …`. */
function accumulator(a: Node): { name: string; rhs: Node } | undefined {
  const left = a.childForFieldName('left');
  const right = a.childForFieldName('right');
  if (!left || !right) return undefined;
  if (a.type === 'augmented_assignment') {
    if (a.childForFieldName('operator')?.text !== '+=') return undefined;
    const base = left.type === 'subscript' ? left.childForFieldName('value') : left;
    return base?.type === 'identifier' ? { name: base.text, rhs: right } : undefined;
  }
  if (left.type === 'identifier' && right.type === 'binary_operator' && right.childForFieldName('operator')?.text === '+') {
    const l = right.childForFieldName('left');
    if (l?.type === 'identifier' && l.text === left.text) return { name: left.text, rhs: right.childForFieldName('right')! };
  }
  return undefined;
}

function check(ctx: RuleContext, loop: LoopFacts, out: Finding[]): void {
  const noGrad = (n: Node) => underNoGrad(n, ctx.qualify);
  const flow = new GradFlow(ctx.qualify, noGrad);
  const body = loop.node.childForFieldName('body');
  if (!body) return;
  flow.run(body, (a) => {
    if (a.type === 'call') return;
    const acc = accumulator(a);
    if (!acc || noGrad(a)) return;
    const atom = graphAtom(acc.rhs, flow);
    if (!atom) return;
    if (!growsAcrossSteps(acc.name, a, loop.node)) return;
    const v = atom.text;
    const backedUp = loop.backward.some((c) => c.text.includes(v));
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
  });
}

/** HR001 accumulate-grad-history: `total_loss += loss` in a step loop keeps graphs alive. */
export function hr001(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of innermostStepLoops(ctx.root)) check(ctx, loop, out);
  return out;
}
