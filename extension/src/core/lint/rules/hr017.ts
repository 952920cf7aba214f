import type { SyntaxNode } from '../syntax/syntaxNode';
import { importStatements } from '../analysis/imports';
import manifest from './torch_manifest.json';
import { ancestors, bindsName, scopeOf } from '../analysis/scopes';
import { versionGuarded } from '../analysis/guards';
import { within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, Fix, RuleContext } from '../types';
import { defineRule } from './rule';

const MODULES = (manifest as { modules: Record<string, { names: string[] }> }).modules;
const VERSION = (manifest as { torch_version: string }).torch_version.split('+')[0]!;
const NAMES = new Map(Object.entries(MODULES).map(([k, v]) => [k, new Set(v.names)]));
/** Accelerators that out-of-tree plugins attach to `torch` at import time (torch_npu, torch_mlu, …). */
const PLUGIN_BACKENDS = new Set(['npu', 'mlu', 'musa', 'hpu', 'neuron', 'sdaa', 'dipu', 'gcu', 'ipu', 'maia', 'xla']);
const MEMORY_APIS =
  'torch.cuda.empty_cache(), torch.cuda.memory_stats(), torch.cuda.memory_reserved(), or PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True';

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length]!;
}

function report(ctx: RuleContext, mod: string, name: string, at: SyntaxNode): Finding {
  const near = [...NAMES.get(mod)!]
    .filter((n) => !n.startsWith('_'))
    .map((n) => [n, distance(n.toLowerCase(), name.toLowerCase())] as const)
    .filter(([, d]) => d <= Math.max(2, Math.floor(name.length / 4)))
    .sort((a, b) => a[1] - b[1])
    .slice(0, 3);
  const fixes: Fix[] = near.map(([n], i) => ({
    title: `Did you mean ${mod}.${n}?`,
    preferred: i === 0,
    edits: [{ start: at.startIndex, end: at.endIndex, text: n }],
  }));
  const memory = /mem|cache|coalesce|defrag|fragment|alloc/i.test(name) ? ` For memory, the real APIs are ${MEMORY_APIS}.` : '';
  return findingAt(
    'HR017',
    'error',
    at,
    `${mod} has no \`${name}\` (torch ${VERSION}): this raises AttributeError when it runs.${near.length ? ` Did you mean ${near.map(([n]) => n).join(', ')}?` : ''}${memory}`,
    fixes,
  );
}

/**
 * Whether the function around the name `n` binds it itself (a parameter, an assignment, a loop or
 * `with` target): there it is a local, not the import (torchrl's `dist = policy.get_dist(…)` beside
 * `from torch import distributions as dist`).
 */
function boundLocally(n: SyntaxNode): boolean {
  const fn = scopeOf(n);
  const body = fn.type === 'function_definition' ? fn.childForFieldName('body') : null;
  if (!body) return false;
  const name = n.text;
  const param = (p: SyntaxNode | null) =>
    p && (p.type === 'identifier' ? p : (p.childForFieldName('name') ?? p.namedChildren.find((x) => x?.type === 'identifier')));
  if (fn.childForFieldName('parameters')?.namedChildren.some((p) => param(p)?.text === name)) return true;
  return within(body, ['assignment', 'augmented_assignment', 'for_statement', 'with_statement']).some((s) =>
    s.type === 'with_statement'
      ? !!s.namedChildren
          .find((c) => c?.type === 'with_clause')
          ?.descendantsOfType('as_pattern_target')
          .some((t) => t?.text === name)
      : bindsName(s.childForFieldName('left'), name),
  );
}

/**
 * Attributes rooted at a name bound to torch, found from the text (an attribute walk over a
 * 5,000-line file costs more than all the other rules together): each chain link, outermost last.
 */
function torchAttributes(ctx: RuleContext): SyntaxNode[] {
  const names = [...ctx.bindings].filter(([, q]) => q === 'torch' || q.startsWith('torch.')).map(([k]) => k);
  if (!names.length) return [];
  const from = ctx.root.startIndex;
  const out: SyntaxNode[] = [];
  const text = ctx.text.slice(from, ctx.root.endIndex);
  // `\b` and a look at the character before, not a lookbehind: that scan is 4× slower on a large file.
  for (const m of text.matchAll(new RegExp(`\\b(${names.join('|')})((?:\\s*\\.\\s*\\w+)+)`, 'g'))) {
    if (text[m.index - 1] === '.') continue;
    // Read the chain from the text first: only a link the manifest lacks is looked up in the tree.
    let mod = ctx.bindings.get(m[1]!)!;
    let unknown = false;
    for (const link of m[2]!
      .split('.')
      .slice(1)
      .map((l) => l.trim())) {
      const known = NAMES.get(mod);
      if (!known) break;
      if (!link.startsWith('_') && !known.has(link)) unknown = true;
      mod = `${mod}.${link}`;
    }
    if (!unknown) continue;
    const n = ctx.file.descendantForIndex(from + m.index);
    if (n?.type !== 'identifier' || boundLocally(n)) continue; // in a comment or string, or a local of the same name
    for (let p = n.parent; p?.type === 'attribute' && p.startIndex === n.startIndex; p = p.parent) out.push(p);
  }
  return out;
}

/**
 * Behind a guard, a missing name is deliberate: a `try` for ImportError or AttributeError, or an `if`
 * that asks for the name or the version (`hasattr(…)`, `torch.__version__`, mmengine's
 * `TORCH_VERSION == 'parrots'` for another backend's names; not a word that only contains it, `PONG_VERSIONED`).
 */
const deliberate = (n: SyntaxNode): boolean =>
  versionGuarded(n) ||
  ancestors(n).some(
    (p) => p.type === 'if_statement' && /hasattr|getattr|(?<![a-z])version(?![a-z])/i.test(p.childForFieldName('condition')?.text ?? ''),
  );

/** HR017 nonexistent-torch-api: a torch name that does not exist (a popular article invented torch.cuda.memory.efficient_coalesce). */
export function hr017(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const a of torchAttributes(ctx)) {
    if (!a) continue;
    const mod = ctx.qualify(a.childForFieldName('object'));
    const attr = a.childForFieldName('attribute');
    if (!mod || !attr || !NAMES.has(mod) || attr.text.startsWith('_') || NAMES.get(mod)!.has(attr.text)) continue;
    if ((mod === 'torch' || mod === 'torch.backends') && PLUGIN_BACKENDS.has(attr.text)) continue;
    // Assigning the attribute (monkey-patching), or a hasattr/try guard, is deliberate.
    if (a.parent?.type === 'assignment' && a.parent.childForFieldName('left')?.equals(a)) continue;
    if (deliberate(a)) continue;
    out.push(report(ctx, mod, attr.text, attr));
  }
  for (const st of importStatements(ctx.root)) {
    if (st.type !== 'import_from_statement') continue;
    const mod = st?.childForFieldName('module_name')?.text;
    if (!st || !mod || !NAMES.has(mod) || deliberate(st)) continue;
    for (const n of st.childrenForFieldName('name')) {
      const id = n?.type === 'aliased_import' ? n.childForFieldName('name') : n;
      if (id && !id.text.startsWith('_') && !NAMES.get(mod)!.has(id.text)) out.push(report(ctx, mod, id.text, id));
    }
  }
  return out;
}

export const HR017 = defineRule({
  id: 'HR017',
  name: 'nonexistent-torch-api',
  severities: ['error'],
  dependsOn: [],
  run: hr017,
});
