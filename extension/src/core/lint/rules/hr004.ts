import type { Node } from '@vscode/tree-sitter-wasm';
import { ancestors, isModelCall, loopFacts, underNoGrad } from '../facts';
import { anchored, calleeOf, within } from '../nodeIndex';
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

/** HR004 eval-loop-without-no-grad: an evaluation loop builds graphs nobody back-propagates. */
export function hr004(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const torch = ctx.torch;
  for (const fn of anchored(ctx.root, /^[ \t]*(?:async[ \t]+)?(?<at>def)\b/m, ['function_definition'])) {
    const name = fn.childForFieldName('name')?.text ?? '';
    const body = fn.childForFieldName('body');
    // Only functions named for evaluation, or that call .eval(), are looked into.
    if (!body || /_step$/.test(name) || (!EVAL_NAME.test(name) && !/\.eval\(\s*\)/.test(body.text))) continue;
    const evalCalls = within(body, ['call']).filter((c) => /\.eval$/.test(calleeOf(c).text) && (c.childForFieldName('arguments')?.namedChildCount ?? 0) === 0);
    for (const loop of within(body, ['for_statement', 'while_statement'])) {
      if (ancestors(loop).some((p) => p.type === 'for_statement' || p.type === 'while_statement')) continue;
      if (!EVAL_NAME.test(name) && !evalCalls.some((c) => c.endIndex <= loop.startIndex)) continue;
      const f = loopFacts(loop);
      if (f.train || underNoGrad(loop, ctx.qualify)) continue;
      const calls = within(loop.childForFieldName('body') ?? loop, ['call']).filter((c) => isModelCall(calleeOf(c).text) && !underNoGrad(c, ctx.qualify));
      if (!calls.length) continue;
      const fixes = torch ? [wrapFix(loop, ctx, torch), decorateFix(fn, ctx, torch)].filter((x): x is Fix => !!x) : [];
      const head = loop.child(0)!;
      out.push(
        findingAt('HR004', 'warning', head, `This evaluation loop runs \`${calleeOf(calls[0]!).text}(…)\` with autograd on: every forward pass records a graph and keeps its activations for a backward that never comes. Run it under torch.no_grad() (or torch.inference_mode()).`, fixes, {
          line: loop.startPosition.row,
          loopLine: loop.startPosition.row,
          name: calleeOf(calls[0]!).text,
        }),
      );
    }
  }
  return out;
}
