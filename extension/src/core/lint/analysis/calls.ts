import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, memo } from '../syntax/nodeIndex';
import { calledFunctions, ofCall, ownCalls } from './summaries';
import { callsModule, classOfNode, modulesOf } from './moduleNames';
import { carried } from './carried';
import { scopeOf } from './scopes';

// What a call does: runs a model, computes a loss, steps an optimizer, trains through a helper or a step defined elsewhere.

/** Names that look like data to iterate over in a training or eval loop. */
export const DATA_ITER = /loader|batch|dataset|\bdata\b|tqdm|epoch|steps?\b|iter|\bdl\b|_dl\b|\bdl_|pbar/i;
const MODEL_WORDS = 'model|net|network|encoder|decoder|module|backbone|generator|discriminator';
/** `model(x)`, `self.net(x)`, `x.forward(…)`, and running methods on a model-like object: `model.predict(x)`, `module.validation_step(b)`. */
// Or a name that ends in one (`eagle3_model`, `target_net`, `textModel`; case kept: not `subnet`): not encoder/decoder/
// generator/module, which end names of other things too (`label_encoder`, `data_generator`, `import_module`).
/** `get_model(…)`, `self.build_network(…)`: what hands a model over does not run it. */
const HANDS_OVER = /(^|\.)(get|build|make|create|load|init|setup|prepare|wrap|unwrap)_\w*$/;
const MODEL_SUFFIX = /(^|\.)(\w*_(model|net|network|backbone|discriminator)|[a-z]\w*(Model|Net|Network))$/;
const MODEL_CALLEE = new RegExp(
  `(^|\\.)(${MODEL_WORDS})\\w*$|\\.forward$|(^|\\.)(${MODEL_WORDS})\\w*\\.(predict|infer|inference|encode|decode|\\w+_step)$`,
  'i',
);
// Between a callee and its `(`: spaces, line continuations, comments (each to its line's end: one way to read a run of `#`s).
const GAP = '(?:\\s|\\\\|#[^\\n]*\\n)*';
/**
 * Text that may hold a call isModelCall accepts (a superset, read before any node: most loops call
 * no model): a model word then `(` (or a subscript and `(`), `.forward(`, or a model-like method.
 */
export const MAY_CALL_MODEL = new RegExp(
  `(${MODEL_WORDS})\\w*${GAP}(\\[[^\\]]*\\]${GAP})?\\(|\\.${GAP}(forward|predict|infer|inference|encode|decode|\\w+_step)${GAP}\\(`,
  'i',
);
const LOSS_CALLEE = /loss|criterion|crit\b/i;
/** A call that runs a model (not one that builds it: model_cls(), model_fn()). */
export const isModelCall = (callee: string): boolean => {
  // self.model["generator"](z), self.nets[k](x): the model picked from a container.
  const c = callee.replace(/\[[^\]]*\]$/, '');
  // `Model(cfg)`, `nn.ModuleList(…)`: a class called builds a model, it does not run one.
  if (/(^|\.)[A-Z]\w*[a-z]\w*$/.test(c)) return false;
  // `get_model(…)`, `self.build_network(…)`: what hands a model over does not run it.
  if (HANDS_OVER.test(c)) return false;
  return (
    MODEL_CALLEE.test(c) &&
    !/_(cls|class|fn|func|factory|type|name|path|config|kwargs|provider|builder|getter|info|spec|specs|args)$/i.test(c) &&
    !/^torch\./.test(c)
  ); // torch.Generator is a random-number generator
};
/** A call that runs a model: by its callee's words (isModelCall) or because the file shows the callee holds a module. */
export const runsModule = (c: SyntaxNode): boolean => {
  const t = calleeOf(c).text;
  return (
    isModelCall(t) ||
    callsModule(t, modulesOf(c), t.startsWith('self.') ? classOfNode(c) : undefined) ||
    (modelSuffix(t) && boundAsValue(c, t))
  );
};

/** A callee named like a model at its end (`eagle3_model`, `self.target_net`): MODEL_SUFFIX, on a plain or `self.` name. */
export const modelSuffix = (t: string): boolean => /^(self\.)?\w+$/.test(t) && MODEL_SUFFIX.test(t) && !HANDS_OVER.test(t);

/**
 * Whether the file binds the callee as a value (`eagle3_model = …`, `self.teacher_net = …`, a parameter), not
 * a function (`def convert_model`, `from x import unwrap_model`): then a name ending like a model holds one.
 */
function boundAsValue(c: SyntaxNode, t: string): boolean {
  const fn = scopeOf(c);
  const params = fn.type === 'function_definition' ? (fn.childForFieldName('parameters')?.text ?? '') : '';
  const last = t.slice(t.lastIndexOf('.') + 1);
  if (!t.startsWith('self.') && new RegExp(`(^|[(,\\s])${last}\\b`).test(params)) return true;
  const file = c.tree.rootNode;
  return (
    calledFunctions(c).length === 0 &&
    memo(file, `value:${t}`, () => new RegExp(`(?<![\\w.])${t.replace(/\./g, '\\.')}\\s*(:[^=\\n]+)?=(?!=)`).test(file.text))
  );
}
export const isLossCall = (callee: string, q: string | undefined): boolean =>
  LOSS_CALLEE.test(callee.split('.').pop() ?? '') ||
  /^torch\.nn\.functional\.(\w*loss\w*|cross_entropy|nll_loss|mse_loss|l1_loss|binary_cross_entropy\w*|kl_div)$/.test(q ?? '');

export const isBackward = (name: string, method: string | undefined) => method === 'backward' || /(^|\.)backward$/.test(name); // accelerator.backward(loss)
export const isStep = (name: string) => /(optim\w*|opt|scaler)\.step$/i.test(name) || /zero_grad$/.test(name);

/** A training step's helper by its name (`train_util.train_step(...)`, `trainer.train_on_batch(...)`). */
const STEP_HELPER = /(?:^|\.)(?:train(?:ing)?_(?:one_)?(?:step|batch)|train_on_batch)$/i;

/** A call to a training step defined in another file: it trains, and what it returns is unknown here. */
export function outsideStepCall(c: SyntaxNode): boolean {
  return STEP_HELPER.test(calleeOf(c).text) && calledFunctions(c).length === 0;
}

/** What a helper of this file does when a loop calls it (`self.train_one_batch(x)`): its own calls, one level deep. */
export function helperFacts(fn: SyntaxNode): { train: boolean; model: boolean } {
  return memo(fn, `helper:${fn.id}`, () =>
    carried(fn, 'helper', () => {
      let train = false;
      let model = false;
      for (const c of ownCalls(fn)) {
        const { text, method } = calleeOf(c);
        train ||= isBackward(text, method) || isStep(text);
        model ||= runsModule(c);
      }
      // Or through its own helpers (`update` → `update_all`, which steps the optimizer); a recursion reads as no.
      if (!train)
        train = ownCalls(fn).some(
          (c) => /^(?:(?:self|cls)\.)?\w+$/.test(calleeOf(c).text) && ofCall(c, 'helper-train', (g) => helperFacts(g).train).some((x) => x),
        );
      return { train, model };
    }),
  );
}

/**
 * Whether a helper of this file needs grad on: it trains, or takes gradients itself with
 * torch.autograd.grad (an adversarial attack, a saliency map), in its own body.
 */
export function takesGradients(fn: SyntaxNode): boolean {
  return helperFacts(fn).train || ownCalls(fn).some((c) => /(^|\.)autograd\.grad$/.test(calleeOf(c).text));
}
