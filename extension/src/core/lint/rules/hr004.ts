import type { SyntaxNode } from '../syntax/syntaxNode';
import {
  callersNoGrad,
  dataLoopAround,
  isTestFile,
  evalFromCallers,
  evalNamed,
  flagSwitched,
  gateOf,
  modeCalls,
  underGradSwitch,
} from '../analysis/evalContext';
import { MAY_CALL_MODEL, runsModule, takesGradients } from '../analysis/calls';
import { inferenceCalls } from '../analysis/inferenceLoop';
import { evalStepCalls } from '../analysis/evalStep';
import { mayCallModule } from '../analysis/moduleNames';
import { loopFacts } from '../analysis/loops';
import { scopeOf } from '../analysis/scopes';
import { underNoGrad } from '../analysis/gradMode';
import { calledFunctions, definitionSites } from '../analysis/summaries';
import { GradFlow } from '../analysis/gradFlow';
import { calleeOf, nodesOf, within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

/** Wraps the loop in `with torch.no_grad():` (or another context), its lines one level deeper (unsafe across multi-line strings). */
function wrapFix(loop: SyntaxNode, ctx: RuleContext, torch: string, context = 'no_grad()'): Fix | undefined {
  if (loop.descendantsOfType('string').some((s) => s && s.startPosition.row !== s.endPosition.row)) return undefined;
  const start = ctx.text.lastIndexOf('\n', loop.startIndex - 1) + 1;
  const indent = ctx.text.slice(start, loop.startIndex);
  if (!/^\s*$/.test(indent)) return undefined;
  const unit = /\t/.test(indent) ? '\t' : '    ';
  const body = ctx.text.slice(start, loop.endIndex).replace(/^(?=.*\S)/gm, unit);
  return {
    title: `Wrap the loop in \`with ${torch}.${context}:\``,
    preferred: true,
    edits: [{ start, end: loop.endIndex, text: `${indent}with ${torch}.${context}:\n${body}` }],
  };
}

/** Decorates the enclosing function with `@torch.no_grad()`. */
function decorateFix(fn: SyntaxNode, ctx: RuleContext, torch: string): Fix {
  const head = fn.parent?.type === 'decorated_definition' ? fn.parent : fn;
  const start = ctx.text.lastIndexOf('\n', head.startIndex - 1) + 1;
  const indent = ctx.text.slice(start, head.startIndex);
  return {
    title: `Decorate the function with @${torch}.no_grad()`,
    preferred: false,
    edits: [{ start, end: start, text: `${indent}@${torch}.no_grad()\n` }],
  };
}

/** Whether text calls a function the file defines (`extract(path, model)`, `self._forward(batch)`): a helper that may run the model. */
function callsFileFunction(file: SyntaxNode, text: string): boolean {
  const defs = definitionSites(file);
  for (const m of text.matchAll(/(?<![\w.])(?:self\.)?([A-Za-z_]\w*)\s*\(/g)) if (defs.has(m[1]!)) return true;
  return false;
}

const EVAL_HINTS = [/\.eval\s*\(|\.train\(\s*\w/i, /def\s+_*(eval|valid|test|predict|infer)/i, /\bif\s+(not\s+)?[\w.]*(train|phase|mode)/i];

/** HR004 eval-loop-without-no-grad: an evaluation loop builds graphs nobody back-propagates. */
export function hr004(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  // Nothing here is named or switched for evaluation: no .eval(), no .train(False) or .train(flag), no function named
  // for it, no phase flag (three patterns, each over the whole file, take half as long as their alternation: every
  // re-lint asks). Then only what loops do can make one an inference loop.
  const hinted = EVAL_HINTS.some((p) => p.test(ctx.text));
  const torch = ctx.torch;
  const reported: SyntaxNode[] = [];
  const noGrad = (n: SyntaxNode) => underNoGrad(n, ctx.qualify);
  const flow = new GradFlow(ctx.qualify, noGrad);
  const testFile = isTestFile(ctx.bindings);
  // A model call: by its name, or a helper of this file that runs one with grad on (`self.infer(x)`).
  const runsModel = (c: SyntaxNode) => runsModule(c) || flow.runsModel(c);
  // Every loop (nested ones too: an eval loop inside an epoch loop), in its own scope: a function or the module (scripts, notebooks).
  for (const loop of nodesOf(ctx.root, ['for_statement', 'while_statement'])) {
    if (reported.some((r) => r.startIndex <= loop.startIndex && loop.endIndex <= r.endIndex)) continue;
    const scope = scopeOf(loop);
    const fn = scope.type === 'function_definition' ? scope : undefined;
    const name = fn?.childForFieldName('name')?.text ?? '';
    if (/_step$/.test(name)) continue;
    const f = loopFacts(loop);
    // The body's calls, read only for a loop that gets that far (most are neither trained nor evaluated).
    let calledInBody: SyntaxNode[] | undefined;
    const bodyCalls = () => (calledInBody ??= within(loop.childForFieldName('body') ?? loop, ['call']));
    // One loop for both phases, switched by a flag: its eval passes run with grad on unless the code switches grad per phase.
    const flagged =
      hinted &&
      f.train &&
      flagSwitched(
        loop,
        f.backward,
        bodyCalls().filter((c) => /(optim\w*|opt|scaler)\.step$|zero_grad$/i.test(calleeOf(c).text)),
      );
    if (f.train && !flagged) continue;
    // Named for evaluation, the last mode switch before the loop in its scope put the model in eval mode, or a caller did
    // (or the loop's own body switches to eval and never back: solaris's `self.model.eval()` before each tile's forward).
    const modes = hinted ? modeCalls(scope) : [];
    // A model built in the loop (`model = model_cls(); model.eval()`, a unit test over classes) is not one evaluated over data.
    const inLoop = modes.filter((m) => m.at > loop.startIndex && m.at <= loop.endIndex);
    const built = (t: string) => {
      const self = new RegExp(`(?<![\\w.])${t.replace(/\./g, '\\.')}(?!\\w)`);
      return within(loop.childForFieldName('body') ?? loop, ['assignment']).some(
        (a) => a.childForFieldName('left')?.text === t && !self.test(a.childForFieldName('right')?.text ?? ''),
      );
    };
    const evalMode =
      modes.filter((m) => m.at <= loop.startIndex).at(-1)?.eval || (inLoop.length > 0 && inLoop.every((m) => m.eval && !built(m.target)));
    const named =
      hinted && (flagged || (fn && evalNamed(fn, ctx.bindings, f.step)) || evalMode || (fn && f.step && evalFromCallers(fn, ctx.qualify)));
    // Else evaluation by what the loop does (a sampler, `for img in tqdm(images)`): a cheap text test first.
    if (
      !named &&
      !MAY_CALL_MODEL.test(loop.text) &&
      !mayCallModule(ctx.file, loop.text) &&
      !(
        callsFileFunction(ctx.file, loop.text) &&
        bodyCalls().some((c) => calledFunctions(c).some((h) => MAY_CALL_MODEL.test(h.text) || mayCallModule(ctx.file, h.text)))
      )
    )
      continue;
    if (underNoGrad(loop, ctx.qualify) || underGradSwitch(loop, ctx.qualify) || (fn && callersNoGrad(fn, ctx.qualify))) continue;
    // A helper that takes gradients (an attack, a saliency map) needs grad on, whatever the loop walks.
    if (bodyCalls().some((c) => calledFunctions(c).some(takesGradients))) continue;
    // A call picked by the loop's own target (`self.blocks[i](x)`, `layer(x)`) walks the model's layers, not data.
    const targets = loop.type === 'for_statement' ? (loop.childForFieldName('left')?.text.match(/[A-Za-z_]\w*/g) ?? []) : [];
    const layerwise = (c: SyntaxNode) => targets.some((t) => new RegExp(`(?<![\\w.])${t}(?!\\w)`).test(calleeOf(c).text));
    const running = bodyCalls().filter(
      (c) => runsModel(c) && !layerwise(c) && !underNoGrad(c, ctx.qualify) && !underGradSwitch(c, ctx.qualify),
    );
    const calls = named ? running : inferenceCalls(loop, running, ctx.qualify, noGrad, testFile);
    if (!calls.length) continue;
    reported.push(loop);
    const callee = calleeOf(calls[0]!).text;
    if (flagged) {
      // Training and evaluation in one loop: grad on or off by the same flag that gates the backward.
      const cond = gateOf(f.backward[0] ?? calls[0]!, loop);
      const fixes = torch && cond ? [wrapFix(loop, ctx, torch, `set_grad_enabled(${cond})`)].filter((x): x is Fix => !!x) : [];
      out.push(
        findingAt(
          'HR004',
          'warning',
          loop.child(0)!,
          `This loop trains and evaluates, switched by \`${cond ?? 'a flag'}\`: in evaluation it still runs \`${callee}(…)\` with autograd on, recording graphs and keeping activations for a backward that never comes. Run it under \`torch.set_grad_enabled(${cond ?? 'flag'})\`.`,
          fixes,
          {
            line: loop.startPosition.row,
            loopLine: loop.startPosition.row,
            loopEndLine: loop.endPosition.row,
            name: callee,
          },
        ),
      );
      continue;
    }
    // Reported at the loop that walks the data around the model call (an eval loop inside a loop over loaders).
    const target = dataLoopAround(calls[0]!, loop, (l) => loopFacts(l).step);
    const fixes = torch ? [wrapFix(target, ctx, torch), fn ? decorateFix(fn, ctx, torch) : undefined].filter((x): x is Fix => !!x) : [];
    out.push(
      findingAt(
        'HR004',
        'warning',
        target.child(0)!,
        `This evaluation loop runs \`${callee}(…)\` with autograd on: every forward pass records a graph and keeps its activations for a backward that never comes. Run it under torch.no_grad() (or torch.inference_mode()).`,
        fixes,
        {
          line: target.startPosition.row,
          loopLine: target.startPosition.row,
          loopEndLine: target.endPosition.row,
          name: callee,
        },
      ),
    );
  }
  // A trainer's own per-batch eval method (not Lightning's, which runs without grad): no loop of its own.
  for (const fn of hinted ? nodesOf(ctx.root, 'function_definition') : []) {
    const calls = evalStepCalls(fn, runsModel, ctx.qualify, noGrad);
    if (!calls.length) continue;
    const name = fn.childForFieldName('name')?.text ?? '';
    const callee = calleeOf(calls[0]!).text;
    out.push(
      findingAt(
        'HR004',
        'warning',
        calls[0]!,
        `\`${name}\` puts the model in eval mode and runs \`${callee}(…)\` with autograd on: every batch it is called for records a graph and keeps its activations for a backward that never comes. Decorate it with @torch.no_grad() (or run its body under torch.inference_mode()).`,
        torch ? [decorateFix(fn, ctx, torch)] : [],
        {
          line: calls[0]!.startPosition.row,
          loopLine: fn.startPosition.row,
          loopEndLine: fn.endPosition.row,
          name: callee,
        },
      ),
    );
  }
  return out;
}

export const HR004 = defineRule({
  id: 'HR004',
  name: 'eval-loop-without-no-grad',
  severities: ['warning', 'error'],
  dependsOn: ['mode-switches', 'other-functions'],
  // An eval loop without no_grad that also accumulates graphs is the costly combination: an error.
  settle(mine, all, given) {
    if (given) return;
    for (const f of mine)
      if (all.some((g) => (g.rule === 'HR001' || g.rule === 'HR002') && g.evidence?.loopLine === f.evidence?.loopLine))
        f.severity = 'error';
  },
  run: hr004,
});
