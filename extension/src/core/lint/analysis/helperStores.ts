import type { SyntaxNode } from '../syntax/syntaxNode';
import type { LoopFacts } from './loops';
import type { Qualify } from './scopes';
import { growsAcrossSteps } from './growth';
import { underNoGrad } from './gradMode';
import { GradFlow, graphAtom } from './gradFlow';
import { calleeOf, memo, nodesOf } from '../syntax/nodeIndex';
import { stored } from './stores';
import { calledFunctions, paramNames } from './summaries';
import type { RuleContext } from '../types';

/** A store made by a helper of this file on behalf of a step loop's call: `self._accumulate(preds, predictions)`. */
export interface HelperStore {
  node: SyntaxNode;
  name: string;
  atom: SyntaxNode;
}

/**
 * A call in a step loop passes a graph-carrying value and a container that outlives the loop to a
 * helper of this file, which stores the one in the other (ludwig's `_accumulate_preds(preds,
 * predictions)` appending every prediction tensor): each step's graph stays in the container.
 * `carries` says whether an argument carries a graph at the call.
 */
export function helperStores(ctx: RuleContext, loop: LoopFacts, call: SyntaxNode, carries: (arg: SyntaxNode) => boolean): HelperStore[] {
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (a): a is SyntaxNode => !!a && a.type !== 'keyword_argument',
  );
  if (args.length < 2) return [];
  const graphArgs = args.map((a) => carries(a));
  const containers = args.map((a) => a.type === 'identifier' && growsAcrossSteps(a.text, call, loop.node));
  if (!graphArgs.some((x) => x) || !containers.some((x) => x)) return [];
  const method = /^(self|cls)\./.test(calleeOf(call).text);
  const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
  return calledFunctions(call).flatMap((fn) => {
    const names = paramNames(fn, method);
    return storesInto(
      fn,
      names.filter((_, i) => graphArgs[i]),
      new Set(names.filter((_, i) => containers[i])),
      ctx.qualify,
      noGrad,
    );
  });
}

/** The stores in fn's body of a graph-carrying value into one of `held`, with its parameters `seeds` carrying graphs. */
function storesInto(
  fn: SyntaxNode,
  seeds: readonly string[],
  held: ReadonlySet<string>,
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
): HelperStore[] {
  const body = fn.childForFieldName('body');
  if (!body || !seeds.length || !held.size) return [];
  const out: HelperStore[] = [];
  for (const { node, flow } of memo(body, `from:${body.id}:${seeds.join(',')}`, () => GradFlow.traceFrom(body, seeds, qualify, noGrad))) {
    const s = stored(node);
    if (!s || !held.has(s.name) || noGrad(node)) continue;
    const atom = graphAtom(s.value, flow);
    if (atom) out.push({ node, name: s.name, atom });
  }
  return out;
}

/**
 * What a loop calling fn reads of it here (crossCheck.ts): which of its parameters, given a
 * graph-carrying value, ends up stored in which parameter ('' when it stores into none).
 */
export function storeFlows(fn: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): string {
  const ps = paramNames(fn, false);
  const held = new Set(ps);
  if (!nodesOf(fn, ['call', 'assignment', 'augmented_assignment']).some((n) => held.has(stored(n)?.name ?? ''))) return '';
  return ps.flatMap((p) => storesInto(fn, [p], held, qualify, noGrad).map((x) => `${x.name}<${p}`)).join(',');
}
