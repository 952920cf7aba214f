import type { Node } from '@vscode/tree-sitter-wasm';
import { isModelCall, loopFacts, scopeOf, underNoGrad } from '../facts';
import { anchored, calleeOf, memo, within } from '../nodeIndex';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';

/** eval*, valid*, test (but not test_* unit tests), predict*, infer*. */
const EVAL_NAME = /^(eval|valid|test(?!_)|predict|infer)/i;

/** Wraps the loop in `with torch.no_grad():`, its lines one level deeper (unsafe across multi-line strings). */
function wrapFix(loop: Node, ctx: RuleContext, torch: string): Fix | undefined {
  if (loop.descendantsOfType('string').some((s) => s && s.startPosition.row !== s.endPosition.row)) return undefined;
  const start = ctx.text.lastIndexOf('\n', loop.startIndex - 1) + 1;
  const indent = ctx.text.slice(start, loop.startIndex);
  if (!/^\s*$/.test(indent)) return undefined;
  const unit = /\t/.test(indent) ? '\t' : '    ';
  const body = ctx.text.slice(start, loop.endIndex).replace(/^(?=.*\S)/gm, unit);
  return { title: `Wrap the loop in \`with ${torch}.no_grad():\``, preferred: true, edits: [{ start, end: loop.endIndex, text: `${indent}with ${torch}.no_grad():\n${body}` }] };
}

/** Decorates the enclosing function with `@torch.no_grad()`. */
function decorateFix(fn: Node, ctx: RuleContext, torch: string): Fix {
  const head = fn.parent?.type === 'decorated_definition' ? fn.parent : fn;
  const start = ctx.text.lastIndexOf('\n', head.startIndex - 1) + 1;
  const indent = ctx.text.slice(start, head.startIndex);
  return { title: `Decorate the function with @${torch}.no_grad()`, preferred: false, edits: [{ start, end: start, text: `${indent}@${torch}.no_grad()\n` }] };
}

/** `.eval()` / `.train(False)` (eval mode) and `.train()` calls directly in a scope, in order. */
function modeCalls(scope: Node): { at: number; eval: boolean }[] {
  return memo(scope, `mode:${scope.id}`, () =>
    anchored(scope, /\.\s*(?<at>eval|train)\s*\(/, ['call'])
      .filter((c) => /\.(eval|train)$/.test(calleeOf(c).text) && scopeOf(c).equals(scope))
      .map((c) => {
        const args = c.childForFieldName('arguments')?.namedChildren ?? [];
        return { at: c.endIndex, eval: calleeOf(c).method === 'eval' ? args.length === 0 : args[0]?.text === 'False' };
      }),
  );
}

/** HR004 eval-loop-without-no-grad: an evaluation loop builds graphs nobody back-propagates. */
export function hr004(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  // Nothing here is evaluation: no .eval(), no .train(False), no function named for it.
  if (!/\.eval\s*\(|\.train\(\s*False|def\s+(eval|valid|test(?!_)|predict|infer)/i.test(ctx.text)) return out;
  const torch = ctx.torch;
  const reported: Node[] = [];
  // Every loop (nested ones too: an eval loop inside an epoch loop), in its own scope: a function or the module (scripts, notebooks).
  for (const loop of anchored(ctx.root, /^[ \t]*(?:async[ \t]+)?(?<at>for|while)\b/m, ['for_statement', 'while_statement'])) {
    if (reported.some((r) => r.startIndex <= loop.startIndex && loop.endIndex <= r.endIndex)) continue;
    const scope = scopeOf(loop);
    const fn = scope.type === 'function_definition' ? scope : undefined;
    const name = fn?.childForFieldName('name')?.text ?? '';
    if (/_step$/.test(name)) continue;
    // Named for evaluation, or the last mode switch before the loop in its scope put the model in eval mode.
    const mode = modeCalls(scope).filter((m) => m.at <= loop.startIndex).at(-1);
    if (!(fn && EVAL_NAME.test(name)) && !mode?.eval) continue;
    const f = loopFacts(loop);
    if (f.train || underNoGrad(loop, ctx.qualify)) continue;
    const calls = within(loop.childForFieldName('body') ?? loop, ['call']).filter((c) => isModelCall(calleeOf(c).text) && !underNoGrad(c, ctx.qualify));
    if (!calls.length) continue;
    reported.push(loop);
    const fixes = torch ? [wrapFix(loop, ctx, torch), fn ? decorateFix(fn, ctx, torch) : undefined].filter((x): x is Fix => !!x) : [];
    const head = loop.child(0)!;
    out.push(
      findingAt('HR004', 'warning', head, `This evaluation loop runs \`${calleeOf(calls[0]!).text}(…)\` with autograd on: every forward pass records a graph and keeps its activations for a backward that never comes. Run it under torch.no_grad() (or torch.inference_mode()).`, fixes, {
        line: loop.startPosition.row,
        loopLine: loop.startPosition.row,
        loopEndLine: loop.endPosition.row,
        name: calleeOf(calls[0]!).text,
      }),
    );
  }
  return out;
}
