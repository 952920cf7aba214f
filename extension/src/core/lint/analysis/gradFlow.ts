import type { SyntaxNode } from '../syntax/syntaxNode';
import { computesFromInputs } from './constructed';
import type { Qualify } from './scopes';
import { isLossCall, outsideStepCall, runsModule } from './calls';
import { calleeOf, memo, qualifiedCallee, within } from '../syntax/nodeIndex';
import { calledFunctions, mergeGraph, ofCall, ownCalls, paramNames, returnsOf } from './summaries';
import { mayKeepInObject, passesToHelper } from './stores';
import { moduleKey, modulesOf } from './moduleNames';
import type { GraphSummary } from './summaries';

/** Calls whose result carries no graph: a Python number, a detached tensor, a list. */
const KILL_METHODS = new Set(['item', 'detach', 'tolist', 'numpy', 'size', 'dim', 'numel', 'nelement']);
const NOT_TENSOR = /size|count|^n_|^num|log|info|stats|metric|acc/i;
const KILL_FUNCTIONS = new Set(['float', 'int', 'len', 'bool', 'str', 'round']);
/** Builtins whose result is (one of) what they are given. */
const PASS_FUNCTIONS = new Set(['sum', 'max', 'min', 'abs', 'sorted', 'list', 'tuple', 'reversed']);
/** Comparisons, indices and tests: integer or boolean results that carry no graph (torch.X or x.X). */
const NO_GRAD_OPS = new Set([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'greater',
  'less',
  'greater_equal',
  'less_equal',
  'not_equal',
  'equal',
  'isclose',
  'allclose',
  'argmax',
  'argmin',
  'argsort',
  'argwhere',
  'nonzero',
  'isnan',
  'isinf',
  'isfinite',
  'logical_and',
  'logical_or',
  'logical_not',
  'logical_xor',
  'bucketize',
  'searchsorted',
  'count_nonzero',
]);
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
  /** Names holding what a training step's helper from another file returned: unknown here (tensors or floats). */
  private readonly outside = new Set<string>();

  constructor(
    private readonly qualify: Qualify,
    private readonly noGrad: (n: SyntaxNode) => boolean,
  ) {}

  /** What the file's function(s) a call runs return (summaries.ts). */
  graphOf(c: SyntaxNode): GraphSummary {
    return mergeGraph(ofCall(c, 'graph', (fn) => graphSummary(fn, this.qualify, this.noGrad)));
  }

  /** Whether the file's function(s) a call runs run a model with grad on (summaries.ts). */
  runsModel(c: SyntaxNode): boolean {
    return ofCall(c, 'model', (fn) => ownCalls(fn).some((x) => !this.noGrad(x) && (runsModule(x) || this.runsModel(x)))).some((x) => x);
  }

  has(name: string): boolean {
    return this.gt.has(name);
  }

  /** Starts with `name` carrying a graph (a helper's parameter given one). */
  seed(name: string): void {
    this.gt.add(name);
  }

  /** Whether `name` holds (part of) what another file's training step returned (`total = train_util.train_step(b)[4]`). */
  fromOutsideStep(name: string): boolean {
    return this.outside.has(name);
  }

  private outsideStep(e: SyntaxNode | null): boolean {
    if (e?.type === 'identifier') return this.outside.has(e.text);
    if (e?.type === 'subscript') return this.outsideStep(e.childForFieldName('value'));
    return e?.type === 'call' && outsideStepCall(e);
  }

  /**
   * The flow through a body once for every rule that asks (HR001 and HR002 read the same loops):
   * at each statement that may accumulate or store (`+=`, `x = x + …`, `d[k] = …`, append/extend),
   * the flow as it was just before it.
   */
  static trace(body: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): { node: SyntaxNode; flow: GradFlow }[] {
    return memo(body, `trace:${body.id}`, () => GradFlow.traceFrom(body, [], qualify, noGrad));
  }

  /** trace() through a helper's body whose parameters `seeds` hold the caller's graph-carrying arguments. */
  static traceFrom(
    body: SyntaxNode,
    seeds: readonly string[],
    qualify: Qualify,
    noGrad: (n: SyntaxNode) => boolean,
  ): { node: SyntaxNode; flow: GradFlow }[] {
    const out: { node: SyntaxNode; flow: GradFlow }[] = [];
    const flow = new GradFlow(qualify, noGrad);
    for (const s of seeds) flow.gt.add(s);
    flow.run(body, (n) => {
      if (mayStore(n)) out.push({ node: n, flow: flow.copy() });
    });
    return out;
  }

  private copy(): GradFlow {
    const g = new GradFlow(this.qualify, this.noGrad);
    for (const x of this.gt) g.gt.add(x);
    for (const x of this.outside) g.outside.add(x);
    return g;
  }

  /** Whether expression e carries a graph, given what is known so far. */
  carries(e: SyntaxNode | null): boolean {
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
      case 'conditional_expression':
        // `emb if use_gpu else emb.cpu().numpy()`: either branch may be the one that runs.
        return this.carries(e.namedChild(0)) || this.carries(e.namedChild(2));
      default:
        return false; // literals, comparisons, boolean logic
    }
  }

  private callCarries(c: SyntaxNode): boolean {
    const { node: f, method } = calleeOf(c);
    const args = c.childForFieldName('arguments')?.namedChildren.filter((a): a is SyntaxNode => !!a) ?? [];
    if (!f) return false;
    if (f.type === 'identifier' && KILL_FUNCTIONS.has(f.text)) return false;
    // sum(losses), max(a, b), abs(x): what they are given.
    if (f.type === 'identifier' && PASS_FUNCTIONS.has(f.text) && !calledFunctions(c).length) return args.some((a) => this.carries(a));
    if (method !== undefined) {
      if (KILL_METHODS.has(method) || NO_GRAD_OPS.has(method)) return false;
      if (/(^|\.)scaler\.scale$/i.test(f.text)) return args.some((a) => this.carries(a));
    }
    const q = qualifiedCallee(c, this.qualify);
    if (q?.startsWith('torch.') && NO_GRAD_OPS.has(q.slice(q.lastIndexOf('.') + 1))) return false;
    // A module without parameters (`crit = nn.MSELoss()`, `self.drop = nn.Dropout()`): what it is given.
    if (modulesOf(c).functions.has(moduleKey(f.text, c))) return args.some((a) => this.carries(a));
    if (runsModule(c)) return true;
    // An instance of a class of computation (`self.chamfer_dist(pred, gt)`, built from ChamferDistanceMean()): what it is given.
    if ((f.type === 'identifier' || f.type === 'attribute') && !calledFunctions(c).length && computesFromInputs(c.tree.rootNode, f.text))
      return args.some((a) => this.carries(a.type === 'keyword_argument' ? a.childForFieldName('value') : a));
    // Another method of a loss object (`criterion._show_dice(preds, masks)`): computed from what it is given.
    if (f.type === 'attribute' && isLossCall(f.childForFieldName('object')?.text ?? '', undefined) && !calledFunctions(c).length)
      return (
        this.carries(f.childForFieldName('object')) ||
        args.some((a) => this.carries(a.type === 'keyword_argument' ? a.childForFieldName('value') : a))
      );
    // A loss by its name, unless the file defines it: then its body says (pytorch_geometric's `eval_loss` returns a float).
    if (isLossCall(f.text, q)) return calledFunctions(c).length ? this.graphOf(c).returnsGraph : true;
    if (q?.startsWith('torch.')) return args.some((a) => this.carries(a));
    // A method on a GT (loss.mean(), out.sum()) keeps the graph.
    if (f.type === 'attribute' && this.carries(f.childForFieldName('object'))) return true;
    // A helper of this file that returns one (`loss = train_step(...)`, `self.compute_loss(...)`), or hands back what it is given.
    const g = this.graphOf(c);
    return (
      g.returnsGraph || (!!g.fromArgs && args.some((a) => this.carries(a.type === 'keyword_argument' ? a.childForFieldName('value') : a)))
    );
  }

  /** Applies one statement's assignments. */
  assign(a: SyntaxNode): void {
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    if (a.type === 'assignment' && left) {
      const outside = this.outsideStep(right);
      const names = left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren : [left];
      for (const n of names) if (n?.type === 'identifier') outside ? this.outside.add(n.text) : this.outside.delete(n.text);
    }
    // `loss, logits = model(x)`: every name unpacked from a graph-carrying value carries it.
    if (a.type === 'assignment' && (left?.type === 'pattern_list' || left?.type === 'tuple_pattern')) {
      const gt = this.carries(right) && !this.noGrad(a);
      const names = left.namedChildren.filter((n): n is SyntaxNode => !!n);
      // A helper of this file says which of its results carry a graph (`log, out = self.step(x)`).
      const parts = right?.type === 'call' ? this.graphOf(right).parts : undefined;
      if (parts && parts.length === names.length) {
        names.forEach((n, i) => n.type === 'identifier' && (gt && parts[i] ? this.gt.add(n.text) : this.gt.delete(n.text)));
        return;
      }
      // `_, predicted = torch.max(out, 1)`: the indices half of (values, indices) carries nothing.
      const indices = names.length === 2 && right?.type === 'call' && VALUES_INDICES.has(calleeName(right)) ? names[1] : undefined;
      // Not what reads as a count or a record (fairseq criteria return loss, sample_size, logging_output).
      for (const n of names)
        if (n.type === 'identifier') gt && n !== indices && !NOT_TENSOR.test(n.text) ? this.gt.add(n.text) : this.gt.delete(n.text);
      return;
    }
    // `buf[i] = loss`, `d[k] = out`: the container (a tensor buffer written in place, a dict) now holds the graph.
    const base = left?.type === 'subscript' ? left.childForFieldName('value') : null;
    if (base?.type === 'identifier' && this.carries(right) && !this.noGrad(a)) this.gt.add(base.text);
    if (left?.type !== 'identifier') return;
    if (a.type === 'augmented_assignment') {
      if (this.carries(right) && !this.noGrad(a)) this.gt.add(left.text);
      return;
    }
    if (this.carries(right) && !this.noGrad(a)) this.gt.add(left.text);
    // `loss = None` is mostly the other branch of an if (the flow reads branches in a row), not a release.
    else if (right?.type !== 'none') this.gt.delete(left.text);
  }

  /** A loop body's assignments and calls in order, calling `visit` before each assignment takes effect. */
  run(body: SyntaxNode, visit: (a: SyntaxNode) => void): void {
    for (const a of within(body, ['assignment', 'augmented_assignment', 'call', 'for_statement'])) {
      if (a.type === 'for_statement') {
        this.iterate(a);
        continue;
      }
      visit(a);
      if (a.type !== 'call') this.assign(a);
      else this.backpropagated(a);
    }
  }

  /** What is back-propagated carries a graph, whatever made it (`loss = self._train_step(b)` from a base class). */
  private backpropagated(c: SyntaxNode): void {
    if (calleeOf(c).method !== 'backward') return;
    const x = backwardTarget(c);
    if (x?.type === 'identifier' && !this.noGrad(c)) this.gt.add(x.text);
  }

  /** A nested loop's targets: `for k, v in losses.items()` (v), `for i, x in enumerate(outs)` (x), `for l in losses` (l). */
  private iterate(loop: SyntaxNode): void {
    const left = loop.childForFieldName('left');
    const right = loop.childForFieldName('right');
    if (!left || !right) return;
    const names =
      left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren.filter((n): n is SyntaxNode => !!n) : [left];
    let each: boolean[] = names.map(() => this.carries(right));
    if (right.type === 'call') {
      const { node: f, method } = calleeOf(right);
      const args = right.childForFieldName('arguments')?.namedChildren.filter((x): x is SyntaxNode => !!x) ?? [];
      if (method === 'items' && names.length === 2) each = [false, this.carries(f?.childForFieldName('object') ?? null)];
      else if (f?.text === 'enumerate' && names.length === 2) each = [false, this.carries(args[0] ?? null)];
      else if (f?.text === 'zip' && args.length === names.length) each = args.map((x) => this.carries(x));
    }
    names.forEach((n, i) => n.type === 'identifier' && (each[i] && !this.noGrad(loop) ? this.gt.add(n.text) : this.gt.delete(n.text)));
  }
}

/** A function's graph summary from the data flow through its body: a return of a graph-carrying value (a tuple with one counts). */
export function graphSummary(fn: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): GraphSummary {
  const own = returnedGraph(fn, [], qualify, noGrad);
  if (own.returnsGraph) return own;
  // Graph in, graph out: the same flow with the parameters (not self) carrying one.
  const params = paramNames(fn, false).filter((p) => p && p !== 'self' && p !== 'cls');
  // Only when the function reads a parameter after binding something from it, or returns one (most helpers return what they built themselves or nothing).
  const returned = returnsOf(fn)
    .map((r) => r.namedChild(0)?.text ?? '')
    .join(' ');
  if (
    !params.length ||
    !returned ||
    !params.some((p) => new RegExp(`(?<![\\w.])${p}(?!\\w)`).test(fn.childForFieldName('body')?.text ?? ''))
  )
    return own;
  return returnedGraph(fn, params, qualify, noGrad).returnsGraph ? { ...own, fromArgs: true } : own;
}

function returnedGraph(fn: SyntaxNode, seeds: readonly string[], qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): GraphSummary {
  const flow = new GradFlow(qualify, noGrad);
  for (const s of seeds) flow.seed(s);
  const body = fn.childForFieldName('body');
  // Containers the function fills with graph-carrying values (`log_probs.append(dist.log_prob(a))`): returning one hands the graphs over.
  const filled = new Set<string>();
  if (body) flow.run(body, (n) => filledBy(n, flow, noGrad, filled));
  // What is built from such a container (`torch.stack(preds_all)`) hands them over too.
  for (const f of filled) flow.seed(f);
  let parts: boolean[] | undefined;
  let returnsGraph = false;
  for (const r of returnsOf(fn)) {
    const e = r.namedChild(0);
    if (!e || noGrad(r)) continue;
    const tuple = e.type === 'expression_list' || e.type === 'tuple';
    const each = (tuple ? e.namedChildren : [e]).map((x) => !!x && flow.carries(x));
    if (tuple) parts = parts && parts.length === each.length ? parts.map((x, i) => x || each[i]!) : each;
    returnsGraph ||= each.some((x) => x);
  }
  return { returnsGraph, ...(parts ? { parts } : {}) };
}

/** Notes the container a statement fills with a graph-carrying value: `xs.append(v)`, `xs.extend(vs)`, `d[k] = v`. */
function filledBy(n: SyntaxNode, flow: GradFlow, noGrad: (n: SyntaxNode) => boolean, filled: Set<string>): void {
  if (n.type === 'call') {
    const { node: f, method } = calleeOf(n);
    const obj = f?.type === 'attribute' ? f.childForFieldName('object') : null;
    if (
      obj?.type === 'identifier' &&
      /^(append|extend|insert|add)$/.test(method ?? '') &&
      !filled.has(obj.text) &&
      n.childForFieldName('arguments')?.namedChildren.some((x) => flow.carries(x)) &&
      !noGrad(n)
    )
      filled.add(obj.text);
    return;
  }
  const left = n.childForFieldName('left');
  const base = left?.type === 'subscript' ? left.childForFieldName('value') : null;
  if (base?.type === 'identifier' && !filled.has(base.text) && flow.carries(n.childForFieldName('right')) && !noGrad(n))
    filled.add(base.text);
}

/**
 * What a backward call back-propagates. accelerator.backward(loss), torch.autograd.backward(loss),
 * torch.autograd.grad(loss, x): the first argument (x.backward(gradient) is rare); loss.backward():
 * the tensor; scaler.scale(loss).backward(): scale's argument.
 */
export function backwardTarget(c: SyntaxNode): SyntaxNode | null | undefined {
  const arg = c.childForFieldName('arguments')?.namedChildren.find((n) => n?.type !== 'keyword_argument');
  const f = calleeOf(c).node;
  let x: SyntaxNode | null | undefined = arg ?? (f?.type === 'attribute' ? f.childForFieldName('object') : undefined);
  if (x?.type === 'call' && /(^|\.)scale$/.test(calleeOf(x).text)) x = x.childForFieldName('arguments')?.namedChild(0);
  return x;
}

/** A statement shaped like an accumulation or a store (the rules decide the rest). */
function mayStore(n: SyntaxNode): boolean {
  if (n.type === 'augmented_assignment') return true;
  // A helper of this file given two or more values may store one in another (helperStores.ts).
  if (n.type === 'call') return /^(append|extend|add_)$/.test(calleeOf(n).method ?? '') || passesToHelper(n) || mayKeepInObject(n);
  const left = n.childForFieldName('left');
  const right = n.childForFieldName('right');
  if (left?.type === 'subscript' || right?.type === 'binary_operator') return true;
  // `a, b = a + x, b + y`; `acc = torch.cat([acc, x])` (accumulate.ts reads them).
  return (
    (left?.type === 'pattern_list' && right?.type === 'expression_list') ||
    (!!right && (right.type === 'call' || right.type === 'conditional_expression') && /(cat|stack)\s*\(/.test(right.text))
  );
}

/** The last name of a call's callee: `max` for torch.max(…) and out.max(…). */
function calleeName(c: SyntaxNode): string {
  const { node: f, method } = calleeOf(c);
  return method ?? f?.text.split('.').pop() ?? '';
}

/** The part of `e` that carries the graph, smallest first: an identifier or call to rewrite. */
export function graphAtom(e: SyntaxNode, flow: GradFlow): SyntaxNode | undefined {
  if (e.type === 'binary_operator') return graphAtom(e.childForFieldName('left')!, flow) ?? graphAtom(e.childForFieldName('right')!, flow);
  if (e.type === 'parenthesized_expression') return graphAtom(e.namedChild(0)!, flow);
  // In a container built on the spot, the element that carries it ({'loss': loss} → loss).
  if (e.type === 'list' || e.type === 'tuple' || e.type === 'set')
    return e.namedChildren.map((x) => x && graphAtom(x, flow)).find((x) => !!x) ?? undefined;
  if (e.type === 'conditional_expression')
    return [e.namedChild(0), e.namedChild(2)].map((x) => x && graphAtom(x, flow)).find((x) => !!x) ?? undefined;
  if (e.type === 'dictionary')
    return e.namedChildren.map((p) => (p?.type === 'pair' ? graphAtom(p.childForFieldName('value')!, flow) : undefined)).find((x) => !!x);
  return flow.carries(e) ? e : undefined;
}
