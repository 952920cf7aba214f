import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, callsNamed, qualifiedCallee } from '../syntax/nodeIndex';
import { versionGuarded } from '../analysis/guards';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

/** Deprecated torch.{cuda,cpu}.amp names, with the device their torch.amp replacement needs. */
const DEPRECATED: Record<string, { device: 'cuda' | 'cpu'; name: string }> = {
  'torch.cuda.amp.autocast': { device: 'cuda', name: 'autocast' },
  'torch.cpu.amp.autocast': { device: 'cpu', name: 'autocast' },
  'torch.cuda.amp.GradScaler': { device: 'cuda', name: 'GradScaler' },
  'torch.cuda.amp.custom_fwd': { device: 'cuda', name: 'custom_fwd' },
  'torch.cuda.amp.custom_bwd': { device: 'cuda', name: 'custom_bwd' },
};

/** `torch.cuda.amp.autocast(x)` → `torch.amp.autocast("cuda", x)`: only where the callee is spelled out in full. */
function fix(callee: SyntaxNode, call: SyntaxNode | undefined, d: { device: string; name: string }, ctx: RuleContext): Fix | undefined {
  const m = /^(.*)\.(cuda|cpu)\.amp\.(\w+)$/.exec(callee.text);
  if (!m || ctx.qualify(callee.childForFieldName('object')?.childForFieldName('object')?.childForFieldName('object') ?? null) !== 'torch')
    return undefined;
  const newCallee = `${m[1]}.amp.${m[3]}`;
  const kw = d.name.startsWith('custom_');
  const device = kw ? `device_type="${d.device}"` : `"${d.device}"`;
  const edits = [{ start: callee.startIndex, end: callee.endIndex, text: newCallee }];
  if (call) {
    const args = call.childForFieldName('arguments')!;
    const empty = args.namedChildren.filter((a) => a !== null).length === 0;
    edits.push({ start: args.startIndex + 1, end: args.startIndex + 1, text: empty ? device : `${device}, ` });
  } else edits.push({ start: callee.endIndex, end: callee.endIndex, text: `(${device})` });
  return { title: `Use ${newCallee}(${device}${kw ? '' : ', …'})`, preferred: true, edits };
}

const NAMES = [...new Set(Object.keys(DEPRECATED).map((k) => k.slice(k.lastIndexOf('.') + 1)))];

/** HR007 deprecated-cuda-amp: torch.cuda.amp.* is deprecated for torch.amp.* with a device. */
export function hr007(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<number>();
  for (const n of callsNamed(ctx.root, ctx.bindings, NAMES, ['call', 'decorator'])) {
    if (!n) continue;
    const expr = n.type === 'call' ? calleeOf(n).node : n.namedChild(0);
    if (!expr || expr.type === 'call') continue; // a called decorator is handled as a call
    const q = n.type === 'call' ? qualifiedCallee(n, ctx.qualify) : ctx.qualify(expr);
    const d = q ? DEPRECATED[q] : undefined;
    if (!d || seen.has(expr.startIndex) || versionGuarded(n)) continue;
    seen.add(expr.startIndex);
    const f = fix(expr, n.type === 'call' ? n : undefined, d, ctx);
    out.push(
      findingAt(
        'HR007',
        'warning',
        expr,
        `${q} is deprecated: use torch.amp.${d.name} with the device ("${d.device}") as its ${d.name.startsWith('custom_') ? 'device_type keyword' : 'first argument'}.`,
        f ? [f] : [],
      ),
    );
  }
  return out;
}

export const HR007 = defineRule({
  id: 'HR007',
  name: 'deprecated-cuda-amp',
  severities: ['warning'],
  dependsOn: [],
  run: hr007,
});
