import type { SyntaxNode } from '../syntax/syntaxNode';
import { anchored, calleeOf, memo, ownStatements, within } from '../syntax/nodeIndex';
import { helperFacts, isBackward, isStep } from './calls';
import { graphSummary } from './gradFlow';
import { classOfMethod, enclosingClass, scopeOf } from './scopes';
import { callersOf } from './callers';
import { calledFunctions, ownCalls } from './summaries';
import { callsModule, classOfNode, modulesOf } from './moduleNames';
import type { ModuleFacts } from './modules';
import type { Qualify } from './scopes';

// An inference loop told by what it does, not by what it is called: the model runs on inputs that
// change every pass, and nothing around it trains.

/** Functions whose loops belong to a training step or to the model itself, whatever they do. */
const NOT_INFERENCE = /^(forward|__call__|\w*_step|\w*loss\w*|_*train\w*|fit\w*|\w*backward\w*)$/i;

/** A module class's methods that callers use to run it on data, by name: generation, sampling, prediction. */
const MODEL_API = /^(generate|sample|predict|infer|rollout|beam_search|greedy)\w*$/;

/** Whether code directly in `scope` trains: a backward, an optimizer step or zero_grad, or torch.autograd.grad. */
export function trainsIn(scope: SyntaxNode): boolean {
  // A module's own statements only: a script is not searched whole.
  return memo(scope, `trains:${scope.id}`, () =>
    ownStatements(scope)
      .flatMap((p) => anchored(p, /backward|step|zero_grad|autograd|optim|\bopt\b/, ['call']))
      .some((c) => {
        if (!scopeOf(c).equals(scope)) return false;
        const { text, method } = calleeOf(c);
        // Handing an optimizer to a call (`model.train(phase, loader, optimizer)`) is training, wherever the step is.
        return isBackward(text, method) || isStep(text) || /(^|\.)autograd\.grad$/.test(text) || givesOptimizer(c);
      }),
  );
}

/** A call given an optimizer (`optimizer`, `optim`, `opt_g`, `self.opt`): it steps it. */
function givesOptimizer(c: SyntaxNode): boolean {
  return (c.childForFieldName('arguments')?.namedChildren ?? []).some((a) => {
    const v = a?.type === 'keyword_argument' ? a.childForFieldName('value') : a;
    return (
      (v?.type === 'identifier' || v?.type === 'attribute') &&
      /(^|\.|_)(optim\w*|opt)(_\w+)?$/i.test(v.text) &&
      !/^torch\.optim/.test(calleeOf(c).text)
    );
  });
}

/** The names a loop binds each pass: its targets and what its body assigns (a sampler's `x`, a rollout's `obs`). */
function reboundNames(loop: SyntaxNode): Set<string> {
  const out = new Set<string>();
  const add = (n: SyntaxNode | null) => {
    if (!n) return;
    // `self.model = build()` too: a model built each pass is not one run over data.
    if (n.type === 'identifier' || n.type === 'attribute') out.add(n.text);
    else if (/pattern_list|tuple_pattern|list_pattern/.test(n.type)) for (const c of n.namedChildren) add(c);
  };
  if (loop.type === 'for_statement') add(loop.childForFieldName('left'));
  for (const a of within(loop.childForFieldName('body') ?? loop, ['assignment', 'augmented_assignment', 'for_statement']))
    add(a.childForFieldName('left'));
  return out;
}

/** A model the file shows is one, or named as nothing else is (`model`, `net`, `ema_model`): `decoder.decode(…)` may be a video decoder. */
function strong(c: SyntaxNode, facts: ModuleFacts): boolean {
  const t = calleeOf(c).text.replace(/\[[^\]]*\]$/, '');
  const cls = t.startsWith('self.') ? classOfNode(c) : undefined;
  if (callsModule(t, facts, cls)) return true;
  const base = t.replace(/\.(forward|predict)$/, '');
  // A name its function (or, for `self.x`, its class) binds to an instance of some other class (`model = Predictor(cfg)`) is not one by its name.
  const where = base.startsWith('self.') ? enclosingClass(c) : scopeOf(c);
  const esc = base.replace(/\./g, '\\.');
  if (where && new RegExp(`(?<![\\w.])${esc}\\s*=\\s*(?:\\w+\\.)*[A-Z]\\w*\\s*\\(`).test(where.text)) return false;
  return STRONG_NAME.test(base.slice(base.lastIndexOf('.') + 1));
}
const STRONG_NAME = /^(_*model|_*net|_*network|(?!get_|build_|make_|load_|create_)\w+_model|\w+_net)$/i;

/** A test by pytest's and unittest's conventions: `test_*` / `*_test` functions, `Test*` / `*Test(s)` classes around them. */
export function testCode(fn: SyntaxNode): boolean {
  for (let p: SyntaxNode | null = fn; p; p = p.parent) {
    const name = p.type === 'function_definition' || p.type === 'class_definition' ? (p.childForFieldName('name')?.text ?? '') : '';
    if (/^_*test_|_test$/i.test(name) || (p.type === 'class_definition' && /^Test|Tests?$/.test(name))) return true;
  }
  return false;
}

/** fn's callers in the file exist and none trains, is part of a step or the model, or returns the graph on. */
function keptByCallers(fn: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): boolean {
  const callers = callersOf(fn);
  return (
    callers.length > 0 &&
    callers.every((c) => {
      const s = scopeOf(c);
      if (trainsIn(s)) return false;
      return (
        s.type !== 'function_definition' ||
        (!NOT_INFERENCE.test(s.childForFieldName('name')?.text ?? '') && !graphSummary(s, qualify, noGrad).returnsGraph)
      );
    })
  );
}

/** Whether code directly in `scope` calls a helper of this file that trains (calls.ts helperFacts). */
function trainsViaHelper(scope: SyntaxNode): boolean {
  return memo(scope, `trainsvia:${scope.id}`, () =>
    within(scope, ['call']).some(
      (c) => /^(?:(?:self|cls)\.)?\w+$/.test(calleeOf(c).text) && calledFunctions(c).some((fn) => helperFacts(fn).train),
    ),
  );
}

/** Whether a call's arguments read one of `names`. */
function reads(call: SyntaxNode, names: ReadonlySet<string>): boolean {
  const args = call.childForFieldName('arguments')?.text ?? '';
  for (const m of args.matchAll(/(?<![\w.'"])([A-Za-z_]\w*)/g)) if (names.has(m[1]!)) return true;
  return false;
}

/**
 * Whether a loop runs forward only, for good: not in forward(), a step, a loss, training or a test,
 * nor in a method of a module class; nothing in its function or script trains (itself or through a
 * helper); it keeps nothing on the object; and what its function returns is not trained on by the
 * file's callers. Then nothing ever back-propagates what it computes with grad on.
 */
export function forwardOnly(loop: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): boolean {
  const facts = modulesOf(loop);
  const scope = scopeOf(loop);
  if (scope.type === 'function_definition') {
    if (NOT_INFERENCE.test(scope.childForFieldName('name')?.text ?? '') || testCode(scope)) return false;
    // A method of a module class is the model's own computation (a helper forward() calls), not a loop over data.
    // (Its generation and inference methods are used from outside, like any loop over data: `lm.generate_text()`.)
    const cls = classOfMethod(scope)?.childForFieldName('name')?.text;
    if (cls && facts.classes.includes(cls) && !MODEL_API.test(scope.childForFieldName('name')?.text ?? '')) return false;
    // What it returns goes to its callers: a sampler's image to one that saves it, a rollout's
    // log-probabilities to one that back-propagates them. Only callers of this file that never train say so.
    if (graphSummary(scope, qualify, noGrad).returnsGraph && !keptByCallers(scope, qualify, noGrad)) return false;
  }
  // Nor trains through a helper of this file it calls anywhere (a REINFORCE episode loop, then `finish_episode()`).
  if (trainsIn(scope) || trainsViaHelper(scope)) return false;
  // A loop that ends in an unconditional break runs once (a dry run to initialize lazy modules), over no data.
  const body = loop.childForFieldName('body');
  if (body && body.namedChild(body.namedChildCount - 1)?.type === 'break_statement') return false;
  // What it makes kept on the object (`self.infos.append(…)`, `self.buf[i] = …`) reaches other methods, which may train on it.
  if (/(?<![\w.])self\.\w+(\.(append|extend|insert)\s*\(|\s*\[[^\]]*\]\s*=(?!=))/.test(body?.text ?? '')) return false;
  return true;
}

/**
 * A loop that runs a model on inputs that change every pass (its target, or a value it rebinds),
 * with grad on, in a function (or script) that never trains and returns no graph-carrying value:
 * evaluation, inference, sampling or a rollout whatever it is named. The model calls it runs on
 * changing inputs are returned (none: not one).
 */
export function inferenceCalls(
  loop: SyntaxNode,
  modelCalls: readonly SyntaxNode[],
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
  testFile: boolean,
): SyntaxNode[] {
  if (testFile || !modelCalls.length || !forwardOnly(loop, qualify, noGrad)) return [];
  const facts = modulesOf(loop);
  const names = reboundNames(loop);
  return modelCalls.filter(
    (c) => (strong(c, facts) || helperRunsStrong(c, facts, noGrad)) && reads(c, names) && !names.has(calleeOf(c).text),
  );
}

/** A helper of this file that runs a model (as strong() reads one) itself, with grad on: `feats = extract(path, model)`. */
function helperRunsStrong(c: SyntaxNode, facts: ModuleFacts, noGrad: (n: SyntaxNode) => boolean): boolean {
  return calledFunctions(c).some(
    (fn) => !NOT_INFERENCE.test(fn.childForFieldName('name')?.text ?? '') && ownCalls(fn).some((x) => !noGrad(x) && strong(x, facts)),
  );
}
