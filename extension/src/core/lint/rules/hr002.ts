import type { Node } from '@vscode/tree-sitter-wasm';
import { calleeOf } from '../nodeIndex';
import { growsAcrossSteps, innermostStepLoops, underNoGrad } from '../facts';
import { GradFlow, graphAtom } from '../gradFlow';
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
    if (!obj || obj.type !== 'identifier' || !arg) return undefined;
    if (method === 'append') return { name: obj.text, value: arg };
    if (method === 'extend' && arg.type === 'list' && arg.namedChild(0)) return { name: obj.text, value: arg.namedChild(0)! };
    return undefined;
  }
  const left = n.childForFieldName('left');
  const right = n.childForFieldName('right');
  if (!left || !right) return undefined;
  if (n.type === 'augmented_assignment' && n.childForFieldName('operator')?.text === '+=' && left.type === 'identifier' && right.type === 'list' && right.namedChild(0)) return { name: left.text, value: right.namedChild(0)! };
  if (n.type === 'assignment' && left.type === 'subscript' && left.childForFieldName('value')?.type === 'identifier') return { name: left.childForFieldName('value')!.text, value: right };
  return undefined;
}

/** HR002 store-grad-tensor-in-container: `losses.append(loss)` in a step loop keeps every graph. */
export function hr002(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const loop of innermostStepLoops(ctx.root)) {
    const noGrad = (n: Node) => underNoGrad(n, ctx.qualify);
    const flow = new GradFlow(ctx.qualify, noGrad);
    const body = loop.node.childForFieldName('body');
    if (!body) continue;
    flow.run(body, (n) => {
      const s = stored(n);
      if (!s || noGrad(n)) return;
      const atom = graphAtom(s.value, flow);
      if (!atom || !growsAcrossSteps(s.name, n, loop.node)) return;
      const scalar = /loss|cost|err/i.test(atom.text);
      const fixes = scalar
        ? [wrap(atom, '.item()', 'Store a Python number', true), wrap(atom, '.detach()', 'Store a detached tensor', false)]
        : [wrap(atom, '.detach()', 'Store a detached tensor', true), wrap(atom, '.detach().cpu()', 'Store a detached copy in host memory', false)];
      const cost = loop.train ? "each step's graph history" : "each step's graph with its saved activations";
      out.push(
        findingAt('HR002', 'warning', n, `\`${s.name}\` keeps \`${atom.text}\`, which still has a grad_fn: ${cost} stays alive for as long as \`${s.name}\` does. Store \`${atom.text}${scalar ? '.item()' : '.detach()'}\` instead.`, fixes, {
          line: n.startPosition.row,
          loopLine: loop.node.startPosition.row,
          loopEndLine: loop.node.endPosition.row,
          name: s.name,
        }),
      );
    });
  }
  return out;
}
