import type { Node } from '@vscode/tree-sitter-wasm';
import type { Qualify } from './facts';
import { isLossCall, isModelCall } from './facts';
import { calleeOf, qualifiedCallee, within } from './nodeIndex';
import { ownCalls, returnsOf, summaryOfCall } from './summaries';
import type { Summarize, Summary } from './summaries';

/** Calls whose result carries no graph: a Python number, a detached tensor, a list. */
const KILL_METHODS = new Set(['item', 'detach', 'tolist', 'numpy', 'size', 'dim', 'numel', 'nelement']);
const NOT_TENSOR = /size|count|^n_|^num|log|info|stats|metric|acc/i;
const KILL_FUNCTIONS = new Set(['float', 'int', 'len', 'bool', 'str', 'round']);
/** Comparisons, indices and tests: integer or boolean results that carry no graph (torch.X or x.X). */
const NO_GRAD_OPS = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'greater', 'less', 'greater_equal', 'less_equal', 'not_equal', 'equal', 'isclose', 'allclose', 'argmax', 'argmin', 'argsort', 'argwhere', 'nonzero', 'isnan', 'isinf', 'isfinite', 'logical_and', 'logical_or', 'logical_not', 'logical_xor', 'bucketize', 'searchsorted', 'count_nonzero']);
/** Attributes of a tensor that carry no graph: `.data` is detached, the rest are not tensors or have none. */
const NO_GRAPH_ATTRS = new Set(['data', 'shape', 'device', 'dtype', 'grad', 'requires_grad', 'is_cuda', 'ndim']);
/** Reductions that return (values, indices) with a dim: the indices half carries no graph. */
const VALUES_INDICES = new Set(['max', 'min', 'sort', 'topk', 'kthvalue', 'mode', 'median']);

/**
 * "This name holds a tensor that carries a graph" (GT), statement by statement through a loop body:
 * model and loss calls, `.loss` of a model output, `scaler.scale(x)`, and arithmetic, indexing and
 * torch ops on a GT are GT; `.item()`, `.detach()`, `float()`, `len()`, comparisons and anything
 * assigned under no-grad are not.
 */
export class GradFlow {
  private readonly gt = new Set<string>();
  readonly summarize: Summarize;

  constructor(
    private readonly qualify: Qualify,
    private readonly noGrad: (n: Node) => boolean,
  ) {
    this.summarize = summarizer(qualify, noGrad);
  }

  has(name: string): boolean {
    return this.gt.has(name);
  }

  /** Whether expression e carries a graph, given what is known so far. */
  carries(e: Node | null): boolean {
    if (!e) return false;
    switch (e.type) {
      case 'identifier':
        return this.gt.has(e.text);
      case 'parenthesized_expression':
        return this.carries(e.namedChild(0));
      case 'binary_operator':
        return this.carries(e.childForFieldName('left')) || this.carries(e.childForFieldName('right'));
      case 'unary_operator':
        return this.carries(e.childForFieldName('argument'));
      case 'subscript':
        return this.carries(e.childForFieldName('value'));
      case 'attribute':
        // outputs.loss, outputs.logits: as the output they come from; x.data is detached, x.shape a size.
        return !NO_GRAPH_ATTRS.has(e.childForFieldName('attribute')?.text ?? '') && this.carries(e.childForFieldName('object'));
      case 'call':
        return this.callCarries(e);
      case 'list':
      case 'tuple':
      case 'set':
        // {'loss': loss} and [out, loss] hold what they are built from.
        return e.namedChildren.some((x) => this.carries(x));
      case 'dictionary':
        return e.namedChildren.some((p) => p?.type === 'pair' && this.carries(p.childForFieldName('value')));
      default:
        return false; // literals, comparisons, boolean logic
    }
  }

  private callCarries(c: Node): boolean {
    const { node: f, method } = calleeOf(c);
    const args = c.childForFieldName('arguments')?.namedChildren.filter((a): a is Node => !!a) ?? [];
    if (!f) return false;
    if (f.type === 'identifier' && KILL_FUNCTIONS.has(f.text)) return false;
    if (method !== undefined) {
      if (KILL_METHODS.has(method) || NO_GRAD_OPS.has(method)) return false;
      if (/(^|\.)scaler\.scale$/i.test(f.text)) return args.some((a) => this.carries(a));
    }
    const q = qualifiedCallee(c, this.qualify);
    if (q?.startsWith('torch.') && NO_GRAD_OPS.has(q.slice(q.lastIndexOf('.') + 1))) return false;
    if (isModelCall(f.text) || isLossCall(f.text, q)) return true;
    if (q?.startsWith('torch.')) return args.some((a) => this.carries(a));
    // A method on a GT (loss.mean(), out.sum()) keeps the graph.
    if (f.type === 'attribute' && this.carries(f.childForFieldName('object'))) return true;
    // A helper of this file that returns one (`loss = train_step(...)`, `self.compute_loss(...)`).
    return summaryOfCall(c, this.summarize).returnsGraph;
  }

  /** Applies one statement's assignments. */
  assign(a: Node): void {
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    // `loss, logits = model(x)`: every name unpacked from a graph-carrying value carries it.
    if (a.type === 'assignment' && (left?.type === 'pattern_list' || left?.type === 'tuple_pattern')) {
      const gt = this.carries(right) && !this.noGrad(a);
      const names = left.namedChildren.filter((n): n is Node => !!n);
      // `_, predicted = torch.max(out, 1)`: the indices half of (values, indices) carries nothing.
      const indices = names.length === 2 && right?.type === 'call' && VALUES_INDICES.has(calleeName(right)) ? names[1] : undefined;
      // Not what reads as a count or a record (fairseq criteria return loss, sample_size, logging_output).
      for (const n of names) if (n.type === 'identifier') gt && n !== indices && !NOT_TENSOR.test(n.text) ? this.gt.add(n.text) : this.gt.delete(n.text);
      return;
    }
    if (left?.type !== 'identifier') return;
    if (a.type === 'augmented_assignment') {
      if (this.carries(right) && !this.noGrad(a)) this.gt.add(left.text);
      return;
    }
    if (this.carries(right) && !this.noGrad(a)) this.gt.add(left.text);
    else this.gt.delete(left.text);
  }

  /** A loop body's assignments and calls in order, calling `visit` before each assignment takes effect. */
  run(body: Node, visit: (a: Node) => void): void {
    for (const a of within(body, ['assignment', 'augmented_assignment', 'call'])) {
      visit(a);
      if (a.type !== 'call') this.assign(a);
    }
  }
}

/**
 * Summaries of this file's functions (summaries.ts) from the data flow through each body: a return
 * of a graph-carrying value (a tuple with one counts), and a model run with grad on.
 */
export function summarizer(qualify: Qualify, noGrad: (n: Node) => boolean): Summarize {
  const summarize = (fn: Node): Summary => {
    const flow = new GradFlow(qualify, noGrad);
    const body = fn.childForFieldName('body');
    if (body) flow.run(body, () => undefined);
    const returnsGraph = returnsOf(fn).some((r) => {
      const e = r.namedChild(0);
      if (!e || noGrad(r)) return false;
      const parts = e.type === 'expression_list' || e.type === 'tuple' ? e.namedChildren : [e];
      return parts.some((x) => !!x && flow.carries(x));
    });
    const runsModel = ownCalls(fn).some((c) => !noGrad(c) && (isModelCall(calleeOf(c).text) || summaryOfCall(c, summarize).runsModel));
    return { returnsGraph, runsModel };
  };
  return summarize;
}

/** The last name of a call's callee: `max` for torch.max(…) and out.max(…). */
function calleeName(c: Node): string {
  const { node: f, method } = calleeOf(c);
  return method ?? f?.text.split('.').pop() ?? '';
}

/** The part of `e` that carries the graph, smallest first: an identifier or call to rewrite. */
export function graphAtom(e: Node, flow: GradFlow): Node | undefined {
  if (e.type === 'binary_operator') return graphAtom(e.childForFieldName('left')!, flow) ?? graphAtom(e.childForFieldName('right')!, flow);
  if (e.type === 'parenthesized_expression') return graphAtom(e.namedChild(0)!, flow);
  // In a container built on the spot, the element that carries it ({'loss': loss} → loss).
  if (e.type === 'list' || e.type === 'tuple' || e.type === 'set') return e.namedChildren.map((x) => x && graphAtom(x, flow)).find((x) => !!x) ?? undefined;
  if (e.type === 'dictionary') return e.namedChildren.map((p) => (p?.type === 'pair' ? graphAtom(p.childForFieldName('value')!, flow) : undefined)).find((x) => !!x);
  return flow.carries(e) ? e : undefined;
}
