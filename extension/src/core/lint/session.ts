import type { Edit, Node, Tree } from '@vscode/tree-sitter-wasm';
import { lintText } from './lint';
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
    let kept = this.findings;
    if (this.tree && changes.length) {
      for (const c of changes) {
        this.tree.edit(toEdit(c));
        kept = kept.map((f) => shift(f, c, text)).filter((f): f is Finding => !!f);
      }
    } else {
      this.tree?.delete();
      this.tree = undefined;
      kept = [];
    }
    const r = lintText(this.parser, text, this.opts, this.tree);
    this.tree?.delete();
    this.tree = r.tree;
    let out = r.findings;
    if (r.broken && kept.length) {
      const broken = errorRanges(r.tree.rootNode);
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
