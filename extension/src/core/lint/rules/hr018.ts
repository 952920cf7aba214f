import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, callsNamed, qualifiedCallee } from '../syntax/nodeIndex';
import { versionGuarded } from '../analysis/guards';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

/** Deprecated memory APIs and their replacements (data, so a new deprecation is a row). */
const RENAMED: Record<string, string> = {
  'torch.cuda.memory_cached': 'memory_reserved',
  'torch.cuda.max_memory_cached': 'max_memory_reserved',
  'torch.cuda.reset_max_memory_allocated': 'reset_peak_memory_stats',
  'torch.cuda.reset_max_memory_cached': 'reset_peak_memory_stats',
  'torch.cuda.memory.memory_cached': 'memory_reserved',
  'torch.cuda.memory.max_memory_cached': 'max_memory_reserved',
  'torch.cuda.memory.reset_max_memory_allocated': 'reset_peak_memory_stats',
  'torch.cuda.memory.reset_max_memory_cached': 'reset_peak_memory_stats',
};
const CONSTRUCTOR = /^torch\.cuda\.(Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool)Tensor$/;
const DTYPE: Record<string, string> = {
  Float: 'float32',
  Double: 'float64',
  Half: 'float16',
  BFloat16: 'bfloat16',
  Long: 'int64',
  Int: 'int32',
  Short: 'int16',
  Char: 'int8',
  Byte: 'uint8',
  Bool: 'bool',
};

function renameFix(n: SyntaxNode, to: string): Fix | undefined {
  if (n.type !== 'attribute') return undefined; // an imported name: its import must change too
  const attr = n.childForFieldName('attribute')!;
  return { title: `Use ${to}`, preferred: true, edits: [{ start: attr.startIndex, end: attr.endIndex, text: to }] };
}

const NAMES = [
  ...Object.keys(RENAMED).map((k) => k.slice(k.lastIndexOf('.') + 1)),
  ...Object.keys(DTYPE).map((t) => `${t}Tensor`),
  'sdp_kernel',
];

/** HR018 deprecated-memory-api: cached → reserved, reset_max_* → reset_peak_memory_stats, typed CUDA constructors, sdp_kernel. */
export function hr018(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of callsNamed(ctx.root, ctx.bindings, NAMES)) {
    const f = c ? calleeOf(c).node : null;
    const q = c ? qualifiedCallee(c, ctx.qualify) : undefined;
    if (!c || !f || !q || !(q in RENAMED || CONSTRUCTOR.test(q) || q === 'torch.backends.cuda.sdp_kernel') || versionGuarded(c)) continue;
    const to = RENAMED[q];
    if (to) {
      const fix = renameFix(f, to);
      out.push(
        findingAt(
          'HR018',
          'warning',
          f,
          `${q} is deprecated: torch.cuda.${to} says the same with the allocator's current names (cached memory is "reserved" memory).`,
          fix ? [fix] : [],
        ),
      );
      continue;
    }
    const m = CONSTRUCTOR.exec(q);
    if (m) {
      const args = c.childForFieldName('arguments')!.namedChildren.filter((a): a is SyntaxNode => !!a);
      // Only data (a list) converts safely: FloatTensor(3, 4) is a shape, with uninitialised memory.
      const fix: Fix[] =
        args.length === 1 && args[0]!.type === 'list' && f.type === 'attribute'
          ? [
              {
                title: `Use torch.tensor(…, dtype=torch.${DTYPE[m[1]!]}, device="cuda")`,
                preferred: true,
                edits: [
                  {
                    start: c.startIndex,
                    end: c.endIndex,
                    text: `${f.text.replace(/\.cuda\.\w+$/, '')}.tensor(${args[0]!.text}, dtype=${f.text.replace(/\.cuda\.\w+$/, '')}.${DTYPE[m[1]!]}, device="cuda")`,
                  },
                ],
              },
            ]
          : [];
      out.push(
        findingAt(
          'HR018',
          'warning',
          f,
          `${q} is a legacy constructor: use torch.tensor(data, dtype=torch.${DTYPE[m[1]!]}, device="cuda") for data, or torch.empty/zeros(shape, …, device="cuda") for a shape.`,
          fix,
        ),
      );
      continue;
    }
    if (q === 'torch.backends.cuda.sdp_kernel')
      out.push(
        findingAt(
          'HR018',
          'warning',
          f,
          'torch.backends.cuda.sdp_kernel is deprecated: use torch.nn.attention.sdpa_kernel with a list of SDPBackend values.',
        ),
      );
  }
  return out;
}

export const HR018 = defineRule({
  id: 'HR018',
  name: 'deprecated-memory-api',
  severities: ['warning'],
  dependsOn: [],
  run: hr018,
});
