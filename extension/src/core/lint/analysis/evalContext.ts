import type { SyntaxNode } from '../syntax/syntaxNode';
import type { Qualify } from './scopes';
import { ancestors, scopeOf } from './scopes';
import { underNoGrad } from './gradMode';
import { anchored, calleeOf, memo, nodesOf, within } from '../syntax/nodeIndex';
import { DATA_ITER } from './calls';
import { callersOf } from './callers';

/** eval*, valid*, test*, predict*, infer*: names of evaluation code. */
const EVAL_NAME = /^_*(eval|valid|test|predict|infer)/i;
/** A phase flag as a condition: `train`, `not self.training`, `phase == 'train'`, `mode in ('val',)`; not `len(trainable) > 0`. */
const TRAIN_FLAG = /^(not\s+)?[\w.]*(train|phase|mode|eval)\w*(\s*(==|!=|is not|is|not in|in)\s*[\w.'"()[\], ]+)?$/i;

/** `.eval()` / `.train(False)` (eval mode) and `.train()` calls directly in a scope, in order. */
export function modeCalls(scope: SyntaxNode): { at: number; eval: boolean; target: string }[] {
  return memo(scope, `mode:${scope.id}`, () =>
    anchored(scope, /\.\s*(?<at>eval|train)\s*\(/, ['call'])
      .filter((c) => /\.(eval|train)$/.test(calleeOf(c).text) && scopeOf(c).equals(scope))
      .map((c) => {
        const args = c.childForFieldName('arguments')?.namedChildren ?? [];
        const { text, method } = calleeOf(c);
        return {
          at: c.endIndex,
          eval: method === 'eval' ? args.length === 0 : args[0]?.text === 'False',
          target: text.slice(0, text.lastIndexOf('.')),
        };
      }),
  );
}

/** A pytest or unittest file (it imports one): its loops over models are tests, not evaluation. */
export const isTestFile = (bindings: ReadonlyMap<string, string>): boolean =>
  [...bindings.values()].some((q) => /^(pytest|unittest)(\.|$)/.test(q));

/**
 * Whether a function is named for evaluation. `test_*` is evaluation code too (`test_epoch`) when
 * the loop walks data, except in a unit-test file (pytest or unittest imported) or when it asserts.
 */
export function evalNamed(fn: SyntaxNode, bindings: ReadonlyMap<string, string>, walksData: boolean): boolean {
  const name = fn.childForFieldName('name')?.text ?? '';
  if (!EVAL_NAME.test(name)) return false;
  if (!/^_*test_/i.test(name)) return true;
  if (!walksData) return false;
  if (isTestFile(bindings)) return false;
  return !/^\s*assert\b/m.test(fn.childForFieldName('body')?.text ?? '');
}

/** A caller put the model in eval mode just before calling fn, with grad on (`model.eval(); evaluate(model, dl)`). */
export function evalFromCallers(fn: SyntaxNode, qualify: Qualify): boolean {
  return callersOf(fn).some(
    (c) =>
      modeCalls(scopeOf(c))
        .filter((m) => m.at <= c.startIndex)
        .at(-1)?.eval === true && !underNoGrad(c, qualify),
  );
}

/** Every caller in the file already runs fn under no-grad (the catalog's interprocedural trap). */
export function callersNoGrad(fn: SyntaxNode, qualify: Qualify): boolean {
  const cs = callersOf(fn);
  return cs.length > 0 && cs.every((c) => underNoGrad(c, qualify));
}

/** Under `with torch.set_grad_enabled(flag):` (any argument): the code switches grad itself, per phase. */
export function underGradSwitch(n: SyntaxNode, qualify: Qualify): boolean {
  return ancestors(n).some(
    (p) =>
      p.type === 'with_statement' &&
      (p.namedChildren.find((c) => c?.type === 'with_clause')?.namedChildren ?? []).some((item) => {
        const v = item?.childForFieldName('value');
        const call = v?.type === 'as_pattern' ? v.namedChild(0) : v;
        return (
          call?.type === 'call' &&
          /^torch\.(set_grad_enabled|autograd\.set_grad_enabled|enable_grad)$/.test(qualify(call.childForFieldName('function')) ?? '')
        );
      }),
  );
}

/** A mode switch in a function's text, as flagSwitched reads it (crossCheck.ts's modeSignature counts the same). */
export const MODE_SWITCH = /\.eval\s*\(|\.train\(\s*\w/;

/**
 * One loop for training and evaluation, switched by a flag (`if train: loss.backward()`): the
 * backward and optimizer calls all sit under such an `if`, so the eval passes build graphs too.
 */
export function flagSwitched(loop: SyntaxNode, backward: readonly SyntaxNode[], steps: readonly SyntaxNode[]): boolean {
  const all = [...backward, ...steps];
  const conditions = all.map((c) => gateOf(c, loop));
  if (!all.length || conditions.some((c) => c === undefined)) return false;
  // Two phases that both train (a GAN's `phase == "G"` and `phase == "D"`, each with its backward): no eval pass.
  if (new Set(backward.map((c) => gateOf(c, loop))).size > 1) return false;
  // The flag changes between calls: the function takes it as a parameter, or switches the model's mode itself.
  const scope = scopeOf(loop);
  const params =
    scope.type === 'function_definition'
      ? (scope.childForFieldName('parameters')?.namedChildren ?? []).map((p) =>
          p?.type === 'identifier' ? p.text : (p?.childForFieldName('name')?.text ?? p?.namedChild(0)?.text ?? ''),
        )
      : [];
  return MODE_SWITCH.test(scope.text) || conditions.some((c) => params.some((p) => p && new RegExp(`\\b${p}\\b`).test(c!)));
}

/** The flag condition an `if` inside the loop gates n with (`train` in `if train: loss.backward()`). */
export function gateOf(n: SyntaxNode, loop: SyntaxNode): string | undefined {
  let from: SyntaxNode = n;
  for (const p of ancestors(n)) {
    if (p.equals(loop)) return undefined;
    // In an `elif` its own condition gates it; in the `else`, the negation.
    const cond =
      from.type === 'elif_clause'
        ? from.childForFieldName('condition')
        : p.type === 'if_statement'
          ? p.childForFieldName('condition')
          : null;
    if (cond && TRAIN_FLAG.test(cond.text)) return from.type === 'else_clause' ? `not (${cond.text})` : cond.text;
    from = p;
  }
  return undefined;
}

/**
 * Where to report an eval loop: the innermost loop around the model call that walks data (not a
 * decoding loop inside it): a step loop, or a `for` over items (not a count) whose item reaches the
 * call (`for batch in generator: batch = move(batch); out = model(task, batch)`), whatever it is named.
 */
export function dataLoopAround(call: SyntaxNode, outer: SyntaxNode, walksData: (loop: SyntaxNode) => boolean): SyntaxNode {
  for (const p of ancestors(call)) {
    if ((p.type === 'for_statement' || p.type === 'while_statement') && (walksData(p) || itemReaches(p, call))) return p;
    if (p.equals(outer)) break;
  }
  return outer;
}

/** The iterable's name (`generator`, `enumerate(generator)`) was bound, in the loop's scope, to something that reads as data. */
function boundToData(loop: SyntaxNode, iter: string): boolean {
  const name = /^(?:enumerate\(\s*)?([A-Za-z_]\w*)\s*\)?$/.exec(iter)?.[1];
  if (!name) return false;
  return nodesOf(scopeOf(loop), 'assignment').some(
    (a) =>
      a.startIndex < loop.startIndex &&
      a.childForFieldName('left')?.text === name &&
      DATA_ITER.test(a.childForFieldName('right')?.text ?? ''),
  );
}

const words = (t: string): string[] => t.match(/[A-Za-z_]\w*/g) ?? [];

/**
 * A `for` over data (its iterable, or what its function bound that name to, reads as data:
 * `generator = iterator(dataset, …)`) whose item, or a name the body makes from it, is in the
 * call's arguments. Not a loop over settings inside one batch (`for sigma in val_noises`).
 */
function itemReaches(loop: SyntaxNode, call: SyntaxNode): boolean {
  const iter = loop.childForFieldName('right')?.text ?? '';
  if (loop.type !== 'for_statement' || !(DATA_ITER.test(iter) || boundToData(loop, iter))) return false;
  const names = new Set(words(loop.childForFieldName('left')?.text ?? ''));
  for (const a of within(loop.childForFieldName('body') ?? loop, ['assignment'])) {
    if (a.startIndex >= call.startIndex) break;
    if (words(a.childForFieldName('right')?.text ?? '').some((w) => names.has(w)))
      for (const w of words(a.childForFieldName('left')?.text ?? '')) names.add(w);
  }
  return words(call.childForFieldName('arguments')?.text ?? '').some((w) => names.has(w));
}
