import type { Node } from '@vscode/tree-sitter-wasm';
import { calleeOf, within } from '../nodeIndex';
import { growsAcrossSteps, ownedBy, stepLoops, underNoGrad } from '../facts';
import { GradFlow, graphAtom } from '../gradFlow';
import { perBatchHooks, resetInHook, selfAttribute } from '../hooks';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';

const PRIMARY = new Set(['identifier', 'call', 'attribute', 'subscript', 'parenthesized_expression']);

function wrap(atom: Node, suffix: string, title: string, preferred: boolean): Fix {
  const t = atom.text;
  const text = PRIMARY.has(atom.type) ? `${t}${suffix}` : `(${t})${suffix}`;
  return { title: `${title}: ${text}`, preferred, edits: [{ start: atom.startIndex, end: atom.endIndex, text }] };
}

/** The container and the stored value: `xs.append(v)`, `xs.extend([v])`, `xs += [v]`, `d[k] = v`. */
function stored(n: Node): { name: string; value: Node } | undefined {
  if (n.type === 'call') {
    const { node: f, method } = calleeOf(n);
    const obj = f?.childForFieldName('object');
    const arg = n.childForFieldName('arguments')?.namedChild(0);
    if (!obj || !(obj.type === 'identifier' || selfAttribute(obj)) || !arg) return undefined;
    if (method === 'append') return { name: obj.text, value: arg };
    if (method === 'extend' && arg.type === 'list' && arg.namedChild(0)) return { name: obj.text, value: arg.namedChild(0)! };
    return undefined;
  }
  const left = n.childForFieldName('left');
  const right = n.childForFieldName('right');
  if (!left || !right) return undefined;
  if (n.type === 'augmented_assignment' && n.childForFieldName('operator')?.text === '+=' && (left.type === 'identifier' || selfAttribute(left)) && right.type === 'list' && right.namedChild(0)) return { name: left.text, value: right.namedChild(0)! };
  const base = left.type === 'subscript' ? left.childForFieldName('value') : null;
  if (n.type === 'assignment' && base && (base.type === 'identifier' || selfAttribute(base))) return { name: base.text, value: right };
  return undefined;
}

function report(n: Node, s: { name: string; value: Node }, atom: Node, cost: string, where: { line: number; end: number }): Finding {
  const scalar = /loss|cost|err/i.test(atom.text);
  const fixes = scalar
    ? [wrap(atom, '.item()', 'Store a Python number', true), wrap(atom, '.detach()', 'Store a detached tensor', false)]
    : [wrap(atom, '.detach()', 'Store a detached tensor', true), wrap(atom, '.detach().cpu()', 'Store a detached copy in host memory', false)];
  return findingAt('HR002', 'warning', n, `\`${s.name}\` keeps \`${atom.text}\`, which still has a grad_fn: ${cost} stays alive for as long as \`${s.name}\` does. Store \`${atom.text}${scalar ? '.item()' : '.detach()'}\` instead.`, fixes, {
    line: n.startPosition.row,
    loopLine: where.line,
    loopEndLine: where.end,
    name: s.name,
  });
}

/** HR002 store-grad-tensor-in-container: `losses.append(loss)` in a step loop keeps every graph. */
export function hr002(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const noGrad = (n: Node) => underNoGrad(n, ctx.qualify);
  for (const loop of stepLoops(ctx.root)) {
    const body = loop.node.childForFieldName('body');
    if (!body) continue;
    // A statement of a loop nested in this one is that loop's; with nothing stored of its own, no data flow to follow.
    const owned = ownedBy(loop, ctx.root);
    if (!within(body, ['call', 'augmented_assignment', 'assignment']).some((n) => owned(n) && stored(n))) continue;
    for (const { node: n, flow } of GradFlow.trace(body, ctx.qualify, noGrad)) {
      const s = stored(n);
      if (!s || noGrad(n) || !owned(n)) continue;
      const atom = graphAtom(s.value, flow);
      if (!atom || !(s.name.startsWith('self.') ? !resetInHook(loop.node, s.name) : growsAcrossSteps(s.name, n, loop.node))) continue;
      out.push(report(n, s, atom, loop.train ? "each step's graph history" : "each step's graph with its saved activations", { line: loop.node.startPosition.row, end: loop.node.endPosition.row }));
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
      if (atom) out.push(report(n, s, atom, "each batch's graph (the framework calls this once per batch)", { line: fn.startPosition.row, end: fn.endPosition.row }));
    }
  }
  return out;
}
