import type { Tree } from '@vscode/tree-sitter-wasm';
import { forgetRoot, rootOf } from './syntax/syntaxTree';
import type { SyntaxNode } from './syntax/syntaxNode';
import { importBindings, qualifier } from './analysis/imports';
import { stopCarried, useCarried } from './analysis/carried';
import type { CarriedFacts } from './analysis/carried';
import { NodeIndex } from './syntax/nodeIndex';
import { NotLintedError } from './notLinted';
import type { PythonParser } from './syntax/parser';
import { RULE_LIST } from './rules/registry';
import type { FileKey, RuleDef } from './rules/rule';
import type { Finding, RuleContext, RuleId, Severity, TextEdit } from './types';

/** The rules by id (rules/registry.ts lists them; each declares itself: rules/rule.ts). */
export const RULES = Object.fromEntries(RULE_LIST.map((r) => [r.id, r])) as Record<RuleId, RuleDef>;

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

/**
 * `text.includes('ignore-file')`, searched from its `-`: String#indexOf scans for a needle's first
 * character, and an `i` starts every other word (11× slower on 5,000 lines; each re-lint asks twice).
 */
export function mayHaveFilePragma(text: string): boolean {
  for (let i = text.indexOf('-file', 6); i >= 0; i = text.indexOf('-file', i + 1)) if (text.startsWith('ignore', i - 6)) return true;
  return false;
}

/** The file's pragmas as they are written: a session lints the whole file again when they change. */
export function filePragmaKey(text: string): string {
  return mayHaveFilePragma(text) ? (text.match(/#\s*headroom:\s*ignore-file[^\n]*/g)?.join('|') ?? '') : '';
}

/** Rules a pragma names (`ignore[HR001, HR005]`), or every rule (`ignore`). */
function named(m: RegExpExecArray | null): Set<string> | 'all' | undefined {
  if (!m) return undefined;
  return m[1] === undefined ? 'all' : new Set(m[1].split(',').map((s) => s.trim().toUpperCase()));
}

/**
 * Lints Python source. Only files that import torch are checked (the same names mean other things
 * in TensorFlow or NumPy code). Suppression: `# headroom: ignore[HR001]` (or bare `ignore`) on the
 * finding's first line, `# headroom: ignore-file[HR007]` anywhere for the whole file. Throws
 * NotLintedError for a file the rules cannot walk.
 */
export function lintText(parser: PythonParser, text: string, opts: LintOptions = {}, previous?: Tree): LintResult {
  const tree = parser.parse(text, previous);
  try {
    const findings = lintTree(tree, text, opts);
    // The caller keeps the tree, not the nodes the rules read from it.
    forgetRoot(tree);
    return { findings, tree, broken: tree.rootNode.hasError };
  } catch (e) {
    // The tree lives in the parser's memory, not the JS heap: free it before the error goes up.
    tree.delete();
    throw NotLintedError.from(e);
  }
}

/** The imports a file's findings depend on, as a key (a change here means a full re-lint). */
export function importsKey(bindings: ReadonlyMap<string, string>): string {
  return [...bindings].map(([k, v]) => `${k}=${v}`).join(';');
}

/** Lints a parsed file, or only the given parts of it (the rest is unchanged); `imports`: the file's bindings, when known. */
export function lintTree(
  tree: Tree,
  text: string,
  opts: LintOptions = {},
  scopes?: readonly SyntaxNode[],
  imports?: Map<string, string>,
  fileKeys?: FilesKey,
  facts?: CarriedFacts,
): Finding[] {
  const file = rootOf(tree, text);
  // Attached first, so that what the bindings read is read once (HR017 reads the imports too).
  const ix = NodeIndex.attach(file);
  if (facts) useCarried(file.tree, facts, scopes);
  const findings: Finding[] = [];
  try {
    const bindings = (ix.bindings = imports ?? importBindings(file));
    if (![...bindings.values()].some((q) => q === 'torch' || q.startsWith('torch.'))) return [];
    const torch = [...bindings].find(([, q]) => q === 'torch')?.[0];
    const qualify = qualifier(bindings);
    // A literal search first: the pattern scanned over a whole file costs more than a rule.
    const fileOff = mayHaveFilePragma(text) ? named(FILE_PRAGMA.exec(text)) : undefined;
    const lineOf = (i: number) => text.slice(text.lastIndexOf('\n', i - 1) + 1, (text.indexOf('\n', i) + 1 || text.length + 1) - 1);
    for (const root of scopes ?? [file]) {
      const ctx: RuleContext = {
        root,
        file,
        text,
        qualify,
        bindings,
        torch,
        ...(fileKeys ? { fileData: (id: RuleId) => fileKeys.byRule.get(id)?.data } : {}),
      };
      for (const rule of RULE_LIST) {
        const id = rule.id;
        if (opts.select && !opts.select.includes(id)) continue;
        const sev = opts.severity?.[id];
        if (rule.off && !opts.select && !sev) continue;
        if (sev === 'off' || fileOff === 'all' || fileOff?.has(id)) continue;
        for (const f of rule.run(ctx)) {
          const off = named(LINE_PRAGMA.exec(lineOf(f.startIndex)));
          if (off === 'all' || off?.has(id)) continue;
          findings.push(sev ? { ...f, severity: sev } : f);
        }
      }
    }
  } finally {
    NodeIndex.detach(file);
    stopCarried(file.tree);
  }
  // Each rule's findings in the light of the others' (rules/rule.ts settle).
  for (const rule of RULE_LIST)
    if (rule.settle)
      rule.settle(
        findings.filter((f) => f.rule === rule.id),
        findings,
        !!opts.severity?.[rule.id],
      );
  return findings.sort((a, b) => a.startIndex - b.startIndex || a.rule.localeCompare(b.rule));
}

/** Applies edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** Every rule's file key in one: the key, its spans, and each rule's own. */
export interface FilesKey extends FileKey {
  byRule: ReadonlyMap<RuleId, FileKey>;
}

/** What the rules' findings read of the whole file, as a key, and where (rules/rule.ts fileKey): a change re-lints the file. */
export function rulesFileKey(file: SyntaxNode, text: string): FilesKey {
  const byRule = new Map(RULE_LIST.flatMap((r) => (r.fileKey ? [[r.id, r.fileKey(file, text)] as const] : [])));
  const keys = [...byRule.values()];
  return { key: keys.map((k) => k.key).join('\n'), spans: keys.flatMap((k) => k.spans), byRule };
}

/** Every rule's fileKeyWords: an edit on lines without any of them, outside the key's spans, leaves the key as it was. */
export const FILE_KEY_WORDS: readonly string[] = RULE_LIST.flatMap((r) => r.fileKeyWords ?? []);
