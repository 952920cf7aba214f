import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, memo, nodesOf, within } from '../syntax/nodeIndex';
import { calledFunctions } from './summaries';
import { DATA_ITER, helperFacts, isBackward, isStep, outsideStepCall, runsModule } from './calls';
import { ancestors, scopeOf } from './scopes';

// Step loops: what a loop walks and whether it steps an optimizer, runs a model or calls backward; the loop a statement belongs to.

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
    if (runsModule(c)) model = true;
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
export const iterOf = (loop: SyntaxNode): string =>
  loop.type === 'for_statement' ? (loop.childForFieldName('right')?.text ?? '') : (loop.childForFieldName('condition')?.text ?? '');

function computeLoopFacts(loop: SyntaxNode): LoopFacts {
  const iter = iterOf(loop);
  // Without these words in its text a loop calls no backward, step or zero_grad: not a training loop,
  // and with no data to walk not an eval loop either (most loops, read without looking at a node).
  if (!DATA_ITER.test(iter) && !/backward|step|zero_grad/.test(loop.text)) return { node: loop, step: false, train: false, backward: [] };
  const s = stepCalls(loop);
  // A loop inside forward() runs within one step (micro-batches, layers), never across steps.
  const fn = scopeOf(loop);
  // So does a loop over chunks of one batch: `for i in range(0, n, chunk)` slicing `x[i : i + chunk]`.
  const target = loop.type === 'for_statement' ? loop.childForFieldName('left')?.text : undefined;
  const chunks =
    !!target &&
    /^\w+$/.test(target) &&
    /^range\(\s*0\s*,[^,]+,[^,]+\)$/s.test(iter) &&
    new RegExp(`\\[\\s*${target}\\s*:`).test(loop.childForFieldName('body')?.text ?? '');
  const intraStep = chunks || (fn.type === 'function_definition' && /^(forward|__call__)$/.test(fn.childForFieldName('name')?.text ?? ''));
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

/** Every step loop, outer ones too (an epoch loop around a batch loop): with stepLoopOf, each statement belongs to exactly one. */
export function stepLoops(root: SyntaxNode): LoopFacts[] {
  return memo(root, `steploops:${root.id}`, () =>
    nodesOf(root, ['for_statement', 'while_statement'])
      .map(loopFacts)
      .filter((f) => f.step),
  );
}

/** Whether a node in `loop` is the loop's own, not a step loop's nested in it (found by ranges: no parent walk). */
export function ownedBy(loop: LoopFacts, root: SyntaxNode): (n: SyntaxNode) => boolean {
  const inner = stepLoops(root).filter(
    (l) => l !== loop && loop.node.startIndex <= l.node.startIndex && l.node.endIndex <= loop.node.endIndex,
  );
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
