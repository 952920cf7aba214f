import type { SyntaxNode } from '../syntax/syntaxNode';
import { NodeIndex, calleeOf, memo, nodesOf, occurrences, within } from '../syntax/nodeIndex';
import { qualifyDotted } from './imports';
import { calledFunctions, ownCalls } from './summaries';

/** Names that look like data to iterate over in a training or eval loop. */
const DATA_ITER = /loader|batch|dataset|\bdata\b|tqdm|epoch|steps?\b|iter|\bdl\b|_dl\b|\bdl_|pbar/i;
const MODEL_WORDS = 'model|net|network|encoder|decoder|module|backbone|generator|discriminator';
/** `model(x)`, `self.net(x)`, `x.forward(…)`, and running methods on a model-like object: `model.predict(x)`, `module.validation_step(b)`. */
const MODEL_CALLEE = new RegExp(`(^|\\.)(${MODEL_WORDS})\\w*$|\\.forward$|(^|\\.)(${MODEL_WORDS})\\w*\\.(predict|infer|inference|encode|decode|\\w+_step)$`, 'i');
// Between a callee and its `(`: spaces, line continuations, comments (each to its line's end: one way to read a run of `#`s).
const GAP = '(?:\\s|\\\\|#[^\\n]*\\n)*';
/**
 * Text that may hold a call isModelCall accepts (a superset, read before any node: most loops call
 * no model): a model word then `(` (or a subscript and `(`), `.forward(`, or a model-like method.
 */
export const MAY_CALL_MODEL = new RegExp(`(${MODEL_WORDS})\\w*${GAP}(\\[[^\\]]*\\]${GAP})?\\(|\\.${GAP}(forward|predict|infer|inference|encode|decode|\\w+_step)${GAP}\\(`, 'i');
const LOSS_CALLEE = /loss|criterion|crit\b/i;
const NO_GRAD = new Set(['torch.no_grad', 'torch.inference_mode', 'torch.autograd.no_grad', 'torch.autograd.grad_mode.no_grad']);
/** Lightning runs these without grad. */
const NO_GRAD_STEPS = new Set(['validation_step', 'test_step', 'predict_step']);

export type Qualify = (n: SyntaxNode | null) => string | undefined;

export function ancestors(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let p = n.parent; p; p = p.parent) out.push(p);
  return out;
}

/** The innermost function around n (nested functions are their own scope), or the module. */
export function scopeOf(n: SyntaxNode): SyntaxNode {
  for (const p of ancestors(n)) if (p.type === 'function_definition' || p.type === 'module') return p;
  return n;
}

/** A call that runs a model (not one that builds it: model_cls(), model_fn()). */
export const isModelCall = (callee: string): boolean => {
  // self.model["generator"](z), self.nets[k](x): the model picked from a container.
  const c = callee.replace(/\[[^\]]*\]$/, '');
  return MODEL_CALLEE.test(c) && !/_(cls|class|fn|factory|type|name|path|config|kwargs)$/i.test(c) && !/^torch\./.test(c); // torch.Generator is a random-number generator
};
export const isLossCall = (callee: string, q: string | undefined): boolean =>
  LOSS_CALLEE.test(callee.split('.').pop() ?? '') || /^torch\.nn\.functional\.(\w*loss\w*|cross_entropy|nll_loss|mse_loss|l1_loss|binary_cross_entropy\w*|kl_div)$/.test(q ?? '');

const isBackward = (name: string, method: string | undefined) => method === 'backward' || /(^|\.)backward$/.test(name); // accelerator.backward(loss)
const isStep = (name: string) => /(optim\w*|opt|scaler)\.step$/i.test(name) || /zero_grad$/.test(name);

/** A training step's helper by its name (`train_util.train_step(...)`, `trainer.train_on_batch(...)`). */
const STEP_HELPER = /(?:^|\.)(?:train(?:ing)?_(?:one_)?(?:step|batch)|train_on_batch)$/i;

/** A call to a training step defined in another file: it trains, and what it returns is unknown here. */
export function outsideStepCall(c: SyntaxNode): boolean {
  return STEP_HELPER.test(calleeOf(c).text) && calledFunctions(c).length === 0;
}

/** What a helper of this file does when a loop calls it (`self.train_one_batch(x)`): its own calls, one level deep. */
export function helperFacts(fn: SyntaxNode): { train: boolean; model: boolean } {
  return memo(fn, `helper:${fn.id}`, () => {
    let train = false;
    let model = false;
    for (const c of ownCalls(fn)) {
      const { text, method } = calleeOf(c);
      train ||= isBackward(text, method) || isStep(text);
      model ||= isModelCall(text);
    }
    return { train, model };
  });
}

/**
 * Whether a helper of this file needs grad on: it trains, or takes gradients itself with
 * torch.autograd.grad (an adversarial attack, a saliency map), in its own body.
 */
export function takesGradients(fn: SyntaxNode): boolean {
  return helperFacts(fn).train || ownCalls(fn).some((c) => /(^|\.)autograd\.grad$/.test(calleeOf(c).text));
}

/** Calls in a loop body that show it is a step loop: backward, an optimizer step, zero_grad, a model; in the body or in a helper it calls. */
function stepCalls(loop: SyntaxNode): { backward: SyntaxNode[]; step: boolean; model: boolean } {
  const backward: SyntaxNode[] = [];
  let step = false;
  let model = false;
  // A `while` walks data when its condition asks a data source (`while not batcher.last_batch()`), not when
  // it tests a size (`while batch_size:`, timm's OOM retry).
  const dataFor = DATA_ITER.test(iterOf(loop)) && (loop.type === 'for_statement' || /\w\s*\(/.test(iterOf(loop)));
  for (const c of within(loop.childForFieldName('body') ?? loop, ['call'])) {
    const { text: name, method } = calleeOf(c);
    if (isBackward(name, method)) backward.push(c);
    if (isStep(name) || outsideStepCall(c)) step = true;
    if (isModelCall(name)) model = true;
    else if (!(step && model) && /^(self\.)?\w+$/.test(name)) {
      // A helper that trains or runs a model makes a loop over data a step loop; a loop over the
      // optimizers of one step (coqui's Trainer) or a `while` retrying with half the batch after
      // an OOM (timm's validate.py) is not one.
      if (!dataFor) continue;
      for (const fn of calledFunctions(c)) {
        const h = helperFacts(fn);
        step ||= h.train;
        model ||= h.model || h.train;
      }
    }
  }
  return { backward, step, model };
}

export interface LoopFacts {
  node: SyntaxNode;
  /** Runs once per training or eval step (not a loop over layers or chunks inside one step). */
  step: boolean;
  train: boolean;
  /** The `.backward()` calls in the body (and `accelerator.backward(x)`). */
  backward: SyntaxNode[];
}

export function loopFacts(loop: SyntaxNode): LoopFacts {
  return memo(loop, `loop:${loop.id}`, () => computeLoopFacts(loop));
}

/** What a loop walks: a `for`'s iterable, a `while`'s condition. */
const iterOf = (loop: SyntaxNode): string => (loop.type === 'for_statement' ? (loop.childForFieldName('right')?.text ?? '') : (loop.childForFieldName('condition')?.text ?? ''));

function computeLoopFacts(loop: SyntaxNode): LoopFacts {
  const iter = iterOf(loop);
  // Without these words in its text a loop calls no backward, step or zero_grad: not a training loop,
  // and with no data to walk not an eval loop either (most loops, read without looking at a node).
  if (!DATA_ITER.test(iter) && !/backward|step|zero_grad/.test(loop.text)) return { node: loop, step: false, train: false, backward: [] };
  const s = stepCalls(loop);
  // A loop inside forward() runs within one step (micro-batches, layers), never across steps.
  const fn = scopeOf(loop);
  const intraStep = fn.type === 'function_definition' && /^(forward|__call__)$/.test(fn.childForFieldName('name')?.text ?? '');
  const step = !intraStep && (s.backward.length > 0 || s.step || (s.model && DATA_ITER.test(iter)));
  return { node: loop, step, train: s.backward.length > 0 || s.step, backward: s.backward };
}

/** The innermost enclosing loop that is a step loop, within n's own function. */
export function stepLoopOf(n: SyntaxNode): LoopFacts | undefined {
  for (const p of ancestors(n)) {
    if (p.type === 'function_definition' || p.type === 'class_definition') return undefined;
    if (p.type === 'for_statement' || p.type === 'while_statement') {
      const f = loopFacts(p);
      if (f.step) return f;
    }
  }
  return undefined;
}

/** Whether a `with` statement's own items disable grad (nested `with`s in its body are their own). */
function withDisablesGrad(w: SyntaxNode, qualify: Qualify): boolean {
  const clause = w.namedChildren.find((c) => c?.type === 'with_clause');
  for (const item of clause?.namedChildren ?? []) {
    if (item?.type !== 'with_item') continue;
    const v = item.childForFieldName('value');
    const call = v?.type === 'as_pattern' ? v.namedChild(0) : v;
    const callee = call?.type === 'call' ? call.childForFieldName('function') : call;
    const q = qualify(callee ?? null);
    if (q && NO_GRAD.has(q)) return true;
    // Project wrappers (yolov5's smart_inference_mode) say what they do in their name.
    if (/(^|\.)\w*(no_grad|inference_mode)$/.test(callee?.text ?? '')) return true;
    if (q === 'torch.set_grad_enabled' && /\(\s*False\s*\)/.test(call?.text ?? '')) return true;
  }
  return false;
}

/** Where, inside a `with ExitStack() as stack:`, `stack.enter_context(torch.no_grad())` turns grad off (detectron2's evaluator). */
function enteredNoGradAt(w: SyntaxNode, qualify: Qualify): number {
  const body = w.childForFieldName('body');
  if (!body || !/enter_context/.test(body.text)) return Infinity;
  for (const c of nodesOf(body, 'call')) {
    if (!/\.enter_context$/.test(calleeOf(c).text)) continue;
    const inner = c.childForFieldName('arguments')?.namedChild(0);
    const q = qualify(inner?.type === 'call' ? inner.childForFieldName('function') : null);
    if (q && NO_GRAD.has(q)) return c.startIndex;
  }
  return Infinity;
}

function defDisablesGrad(fn: SyntaxNode, qualify: Qualify): boolean {
  if (NO_GRAD_STEPS.has(fn.childForFieldName('name')?.text ?? '')) return true;
  const dec = fn.parent?.type === 'decorated_definition' ? fn.parent : null;
  for (const d of dec?.namedChildren ?? []) {
    if (d?.type !== 'decorator') continue;
    const e = d.namedChild(0);
    const target = e?.type === 'call' ? e.childForFieldName('function') : (e ?? null);
    const q = qualify(target);
    if ((q && NO_GRAD.has(q)) || /(^|\.)\w*(no_grad|inference_mode)$/.test(target?.text ?? '')) return true;
  }
  return false;
}

/** Whether n runs with grad disabled: a `with torch.no_grad():` (any alias, parenthesized or not), a decorator, or a Lightning eval step. */
export function underNoGrad(n: SyntaxNode, qualify: Qualify): boolean {
  for (const p of ancestors(n)) {
    if (p.type === 'with_statement') {
      if (memo(p, `with:${p.id}`, () => withDisablesGrad(p, qualify))) return true;
      if (memo(p, `enter:${p.id}`, () => enteredNoGradAt(p, qualify)) <= n.startIndex) return true;
    }
    if (p.type === 'function_definition' && memo(p, `def:${p.id}`, () => defDisablesGrad(p, qualify))) return true;
  }
  return false;
}

/** An `if` on an out-of-memory flag, as an OOM handler sets it (`has_oom`, `self.oom`, `ooms > 0`; not `zoom`). */
const OOM_CONDITION = /(?:^|[^a-z0-9])ooms?(?![a-z0-9])|out_?of_?memory/i;

/** Whether n is inside an `except` handler, an `if` after an OOM, or an `if` that runs every N steps (`step % N == 0`). */
export function guarded(n: SyntaxNode, stop: SyntaxNode): boolean {
  for (const p of ancestors(n)) {
    if (p.equals(stop)) return false;
    if (p.type === 'except_clause') return true;
    if (p.type !== 'if_statement') continue;
    const condition = p.childForFieldName('condition')?.text ?? '';
    // Every N steps (`step % N == 0`), or only the first ones (`self.get_num_updates() == 0`, `step < 3`).
    if (/%|(?:step|update|iter|epoch|batch)\w*(?:\(\))?\s*(?:==|<=?)\s*\d/i.test(condition)) return true;
    // After an OOM, under the flag its handler set (fairseq's trainer: `if has_oom:`).
    if (OOM_CONDITION.test(condition)) return true;
  }
  return false;
}

/** Whether n is inside a `try` that handles ImportError or AttributeError (a version guard). */
export function versionGuarded(n: SyntaxNode): boolean {
  return ancestors(n).some((p) => p.type === 'try_statement' && /except\s*\(?[^:]*\b(ImportError|AttributeError|ModuleNotFoundError)\b/.test(p.text));
}

/** Whether an assignment target binds `name`: `name = …`, `a, name = …`, `(name, b) = …` (and `(name) = …`, a tuple pattern too). */
export function bindsName(left: SyntaxNode | null, name: string): boolean {
  if (!left) return false;
  if (left.type === 'identifier') return left.text === name;
  if (left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern') return left.namedChildren.some((c) => bindsName(c, name));
  return false;
}

/**
 * Whether `name`, added to at `at` inside `loop`, grows across steps: bound before the loop in the
 * same scope, never re-bound inside it (a per-step reset bounds it), and not back-propagated later
 * (a deliberate sum of losses is how multi-part objectives work).
 */
export function growsAcrossSteps(name: string, at: SyntaxNode, loop: SyntaxNode): boolean {
  const scope = scopeOf(loop);
  // Where `name` is bound and used in this scope: found from its occurrences rather than a walk over the scope.
  const ids = occurrences(scope, new RegExp(`(?<![\\w.])${name}\\b`));
  const binds: SyntaxNode[] = [];
  for (const id of ids) {
    let p = id.parent;
    while (p && (p.type === 'pattern_list' || p.type === 'tuple_pattern' || p.type === 'list_pattern')) p = p.parent;
    if (p?.type === 'assignment' && !p.equals(at) && bindsName(p.childForFieldName('left'), name) && scopeOf(p).equals(scope)) binds.push(p);
  }
  // A bind inside the loop bounds it, unless it is a lazy first-step initialization (`if acc is None: acc = …`,
  // which also sets up the accumulators beside it).
  const lazy = (x: SyntaxNode) => ancestors(x).some((p) => p.type === 'if_statement' && /^([\w.]+\s+is\s+None|not\s+[\w.]+)$/.test(p.childForFieldName('condition')?.text ?? ''));
  if (binds.some((x) => x.startIndex > loop.startIndex && x.endIndex <= loop.endIndex && !lazy(x))) return false;
  if (!binds.some((x) => x.endIndex <= loop.startIndex)) return false;
  if (gatheredAfter(ids, loop, scope)) return false;
  // Back-propagated later, directly or through what is taken out of it (`loss = losses[i]`, `for loss in losses`).
  const aliases = [name, ...takenFrom(scope, name, loop)];
  const word = new RegExp(`\\b(${aliases.join('|')})\\b`);
  const later = occurrences(scope, /\bbackward\b/)
    .map((n) => (n.parent?.type === 'attribute' ? n.parent.parent : n.parent))
    .filter((c): c is SyntaxNode => c?.type === 'call' && c.startIndex > at.startIndex && /(^|\.)backward$/.test(calleeOf(c).text) && scopeOf(c).equals(scope));
  return !later.some((c) => word.test(c.text));
}

/** Names bound after `loop` from `name`: `x = name[i]`, `for x in name`. */
function takenFrom(scope: SyntaxNode, name: string, loop: SyntaxNode): string[] {
  const out: string[] = [];
  for (const id of occurrences(scope, new RegExp(`(?<![\\w.])${name}\\b`))) {
    if (id.startIndex < loop.endIndex) continue;
    const p = id.parent;
    const a = p?.type === 'subscript' ? p.parent : p;
    const left = a?.type === 'assignment' && a.childForFieldName('right')?.equals(p!.type === 'subscript' ? p! : id) ? a.childForFieldName('left') : a?.type === 'for_statement' && a.childForFieldName('right')?.equals(id) ? a.childForFieldName('left') : null;
    if (left?.type === 'identifier') out.push(left.text);
  }
  return out;
}

const GATHER = new Set(['torch.cat', 'torch.concat', 'torch.concatenate', 'torch.stack', 'torch.vstack', 'torch.hstack', 'torch.sum']);

/**
 * Whether the name at `ids` (its occurrences in the scope), filled in a loop that trains nothing and does not walk a data loader, is joined
 * into one tensor right after it (`torch.cat(tiles)`, `torch.stack(aux_losses).mean()`): the chunks
 * of one step's result (tiled decoding, micro-batches), not values kept across steps.
 */
function gatheredAfter(ids: readonly SyntaxNode[], loop: SyntaxNode, scope: SyntaxNode): boolean {
  if (loopFacts(loop).train || (loop.type === 'for_statement' && /loader|dataset/i.test(iterOf(loop)))) return false;
  return ids.some((id) => {
    const call = id.parent?.type === 'argument_list' ? id.parent.parent : null;
    if (!call || call.type !== 'call' || id.startIndex < loop.endIndex || !scopeOf(call).equals(scope)) return false;
    const callee = calleeOf(call).text;
    return callee === 'sum' || GATHER.has(qualifiedName(scope, callee));
  });
}

/** A dotted name's qualified form, through the file's imports (`th.cat` → torch.cat). */
function qualifiedName(n: SyntaxNode, dotted: string): string {
  const bindings = NodeIndex.of(n)?.bindings;
  return (bindings && qualifyDotted(bindings, dotted)) ?? dotted;
}

/** Every step loop, outer ones too (an epoch loop around a batch loop): with stepLoopOf, each statement belongs to exactly one. */
export function stepLoops(root: SyntaxNode): LoopFacts[] {
  return memo(root, `steploops:${root.id}`, () => nodesOf(root, ['for_statement', 'while_statement']).map(loopFacts).filter((f) => f.step));
}

/** Whether a node in `loop` is the loop's own, not a step loop's nested in it (found by ranges: no parent walk). */
export function ownedBy(loop: LoopFacts, root: SyntaxNode): (n: SyntaxNode) => boolean {
  const inner = stepLoops(root).filter((l) => l !== loop && loop.node.startIndex <= l.node.startIndex && l.node.endIndex <= loop.node.endIndex);
  return (n) => !inner.some((l) => l.node.startIndex <= n.startIndex && n.endIndex <= l.node.endIndex);
}

/** Step loops that hold no step loop themselves: each statement belongs to exactly one of them. */
export function innermostStepLoops(root: SyntaxNode): LoopFacts[] {
  return memo(root, `innermost:${root.id}`, () => computeInnermost(root));
}

function computeInnermost(root: SyntaxNode): LoopFacts[] {
  const out: LoopFacts[] = [];
  for (const loop of nodesOf(root, ['for_statement', 'while_statement'])) {
    const f = loopFacts(loop);
    if (!f.step) continue;
    if (within(loop.childForFieldName('body') ?? loop, ['for_statement', 'while_statement']).some((l) => loopFacts(l).step)) continue;
    out.push(f);
  }
  return out;
}
