import type { Edit, Node, Tree } from '@vscode/tree-sitter-wasm';
import { importsKey, lintTree } from './lint';
import type { LintOptions } from './lint';
import type { PythonParser } from './parser';
import type { Finding } from './types';

/** A change to a document, as editors report it: the replaced range (before the change) and the new text. */
export interface TextChange {
  offset: number;
  length: number;
  text: string;
  start: { line: number; col: number };
  end: { line: number; col: number };
}

function toEdit(c: TextChange): Edit {
  const lines = c.text.split('\n');
  const endRow = c.start.line + lines.length - 1;
  const endCol = lines.length === 1 ? c.start.col + c.text.length : lines.at(-1)!.length;
  return {
    startIndex: c.offset,
    oldEndIndex: c.offset + c.length,
    newEndIndex: c.offset + c.text.length,
    startPosition: { row: c.start.line, column: c.start.col },
    oldEndPosition: { row: c.end.line, column: c.end.col },
    newEndPosition: { row: endRow, column: endCol },
  };
}

/** Moves a finding through a change; undefined when the change touched it. */
function shift(f: Finding, c: TextChange, text: string): Finding | undefined {
  if (c.offset < f.endIndex && c.offset + c.length > f.startIndex) return undefined;
  if (c.offset >= f.endIndex) return f;
  const d = c.text.length - c.length;
  const pos = (i: number) => {
    const line = text.slice(0, i).split('\n').length - 1;
    return { line, col: i - (text.lastIndexOf('\n', i - 1) + 1) };
  };
  return { ...f, startIndex: f.startIndex + d, endIndex: f.endIndex + d, start: pos(f.startIndex + d), end: pos(f.endIndex + d), fixes: f.fixes.map((x) => ({ ...x, edits: x.edits.map((e) => ({ ...e, start: e.start + d, end: e.end + d })) })) };
}

function errorRanges(root: Node): [number, number][] {
  const out: [number, number][] = [];
  const walk = (n: Node): void => {
    if (n.isError || n.isMissing) {
      out.push([n.startIndex, n.endIndex]);
      return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) walk(c);
  };
  walk(root);
  return out;
}

/**
 * One document linted as it is edited: the tree is re-parsed incrementally from the previous one,
 * and while a region does not parse (mid-edit), the last good findings inside it are kept rather
 * than flickering away.
 */
export class LintSession {
  private tree: Tree | undefined;
  private findings: Finding[] = [];
  private imports = '';
  private pragmas = '';

  constructor(
    private readonly parser: PythonParser,
    private opts: LintOptions = {},
  ) {}

  setOptions(opts: LintOptions): void {
    this.opts = opts;
    this.tree?.delete();
    this.tree = undefined;
  }

  /** Lints `text`, the document after `changes` (none: a full parse). */
  update(text: string, changes: readonly TextChange[] = []): Finding[] {
    const key = `${text.match(/#\s*headroom:\s*ignore-file[^\n]*/g)?.join('|') ?? ''}`;
    let kept = this.findings;
    const old = this.tree;
    if (old && changes.length) {
      for (const c of changes) {
        old.edit(toEdit(c));
        kept = kept.map((f) => shift(f, c, text)).filter((f): f is Finding => !!f);
      }
    } else kept = [];
    const tree = this.parser.parse(text, old && changes.length ? old : undefined);
    const root = tree.rootNode;
    let out: Finding[];
    const imports = importsKey(root);
    if (old && changes.length && imports === this.imports && key === this.pragmas) {
      // Only the top-level statements an edit touched are linted again; the rest keep their findings.
      const touched = [...tree.getChangedRanges(old).map((r) => [r.startIndex, r.endIndex] as const), ...changes.map((c) => [c.offset, c.offset + c.text.length] as const)];
      const tops = root.namedChildren.filter((t): t is Node => !!t);
      const dirty = tops.filter((t) => touched.some(([a, b]) => a <= t.endIndex && b >= t.startIndex));
      const inDirty = (f: Finding) => dirty.some((t) => f.startIndex >= t.startIndex && f.startIndex < t.endIndex);
      out = [...kept.filter((f) => !inDirty(f)), ...lintTree(tree, text, this.opts, dirty)].sort((a, b) => a.startIndex - b.startIndex || a.rule.localeCompare(b.rule));
    } else out = lintTree(tree, text, this.opts);
    old?.delete();
    this.tree = tree;
    this.imports = imports;
    this.pragmas = key;
    if (root.hasError && kept.length) {
      const broken = errorRanges(root);
      // A broken region spans at least its lines: keep old findings on those lines.
      const lineOf = (i: number) => text.slice(0, i).split('\n').length - 1;
      const lines = broken.map(([a, b]) => [lineOf(a), lineOf(b)] as const);
      const keep = kept.filter((f) => lines.some(([a, b]) => f.start.line >= a - 1 && f.start.line <= b + 1) && !out.some((g) => g.rule === f.rule && g.start.line === f.start.line));
      out = [...out, ...keep].sort((a, b) => a.startIndex - b.startIndex);
    }
    this.findings = out;
    return out;
  }

  dispose(): void {
    this.tree?.delete();
    this.tree = undefined;
  }
}
