import type { Tree } from '@vscode/tree-sitter-wasm';
import { importBindings, qualifier } from './imports';
import type { PythonParser } from './parser';
import { hr001 } from './rules/hr001';
import { hr005 } from './rules/hr005';
import { hr006 } from './rules/hr006';
import { hr007 } from './rules/hr007';
import type { Finding, RuleContext, RuleId, Severity, TextEdit } from './types';

export const RULES: Record<RuleId, { name: string; run: (ctx: RuleContext) => Finding[] }> = {
  HR001: { name: 'accumulate-grad-history', run: hr001 },
  HR005: { name: 'empty-cache-in-step-loop', run: hr005 },
  HR006: { name: 'checkpoint-use-reentrant', run: hr006 },
  HR007: { name: 'deprecated-cuda-amp', run: hr007 },
};

export interface LintOptions {
  /** Only these rules (default: all). */
  select?: readonly RuleId[];
  /** Severity overrides per rule; 'off' turns a rule off. */
  severity?: Partial<Record<RuleId, Severity | 'off'>>;
}

export interface LintResult {
  findings: Finding[];
  tree: Tree;
  /** The file has syntax errors: findings inside broken regions may be missing. */
  broken: boolean;
}

const LINE_PRAGMA = /#\s*headroom:\s*ignore(?:\[([^\]]*)\])?(?!-)/;
const FILE_PRAGMA = /#\s*headroom:\s*ignore-file(?:\[([^\]]*)\])?/;

/** Rules a pragma names (`ignore[HR001, HR005]`), or every rule (`ignore`). */
function named(m: RegExpExecArray | null): Set<string> | 'all' | undefined {
  if (!m) return undefined;
  return m[1] === undefined ? 'all' : new Set(m[1].split(',').map((s) => s.trim().toUpperCase()));
}

/**
 * Lints Python source. Only files that import torch are checked (the same names mean other things
 * in TensorFlow or NumPy code). Suppression: `# headroom: ignore[HR001]` (or bare `ignore`) on the
 * finding's first line, `# headroom: ignore-file[HR007]` anywhere for the whole file.
 */
export function lintText(parser: PythonParser, text: string, opts: LintOptions = {}, previous?: Tree): LintResult {
  const tree = parser.parse(text, previous);
  const root = tree.rootNode;
  const bindings = importBindings(root);
  const broken = root.hasError;
  if (![...bindings.values()].some((q) => q === 'torch' || q.startsWith('torch.'))) return { findings: [], tree, broken };
  const ctx: RuleContext = { root, text, qualify: qualifier(bindings) };
  const lines = text.split('\n');
  const fileOff = named(FILE_PRAGMA.exec(text));
  const findings: Finding[] = [];
  for (const [id, rule] of Object.entries(RULES) as [RuleId, (typeof RULES)[RuleId]][]) {
    if (opts.select && !opts.select.includes(id)) continue;
    const sev = opts.severity?.[id];
    if (sev === 'off' || fileOff === 'all' || fileOff?.has(id)) continue;
    for (const f of rule.run(ctx)) {
      const off = named(LINE_PRAGMA.exec(lines[f.start.line] ?? ''));
      if (off === 'all' || off?.has(id)) continue;
      findings.push(sev ? { ...f, severity: sev } : f);
    }
  }
  findings.sort((a, b) => a.startIndex - b.startIndex || a.rule.localeCompare(b.rule));
  return { findings, tree, broken };
}

/** Applies edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
