import type { Edit, Tree } from '@vscode/tree-sitter-wasm';
import { NotLintedError } from './notLinted';
import { forgetRoot, rootOf } from './syntax/syntaxTree';
import type { SyntaxNode } from './syntax/syntaxNode';
import { importBindings, importStatements } from './analysis/imports';
import { FILE_KEY_WORDS, filePragmaKey, importsKey, lintTree, rulesFileKey } from './lint';
import { moduleFacts, sameModuleFacts } from './analysis/modules';
import type { ModuleFacts } from './analysis/modules';
import { unitEvidence } from './analysis/moduleEvidence';
import type { FilesKey } from './lint';
import type { LintOptions } from './lint';
import type { PythonParser } from './syntax/parser';
import type { Finding } from './types';
import { CrossSignatures, modeSignature } from './crossCheck';
import { crossRefs } from './analysis/summaries';
import { CarriedFacts } from './analysis/carried';
import type { CrossRefs } from './analysis/summaries';

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

const MODE = /\.\s*(eval|train)\b|set_grad_enabled|__enter__/;

/** Where a position after a change's old end lands after the change (no scan of the text). */
function moved(p: { line: number; col: number }, c: TextChange): { line: number; col: number } {
  const nl = c.text.split('\n');
  const endLine = c.start.line + nl.length - 1;
  const endCol = nl.length === 1 ? c.start.col + c.text.length : nl.at(-1)!.length;
  return p.line === c.end.line ? { line: endLine, col: endCol + p.col - c.end.col } : { line: p.line + endLine - c.end.line, col: p.col };
}

/** Moves a finding through a change; undefined when the change touched it. */
function shift(f: Finding, c: TextChange): Finding | undefined {
  if (c.offset < f.endIndex && c.offset + c.length > f.startIndex) return undefined;
  if (c.offset >= f.endIndex) return f;
  const d = c.text.length - c.length;
  return {
    ...f,
    startIndex: f.startIndex + d,
    endIndex: f.endIndex + d,
    start: moved(f.start, c),
    end: moved(f.end, c),
    fixes: f.fixes.map((x) => ({ ...x, edits: x.edits.map((e) => ({ ...e, start: e.start + d, end: e.end + d })) })),
  };
}

/**
 * The smallest units to re-lint around a position: the outermost function around it (a method, a
 * top-level function), else its top-level statement. Findings inside a function depend on nothing
 * outside it but the file's imports and keys (checked separately) and its enclosing `with`s and
 * decorators, which an edit inside it cannot change.
 */
function unitAt(root: SyntaxNode, i: number): SyntaxNode | undefined {
  let unit: SyntaxNode | undefined;
  let top: SyntaxNode | undefined;
  for (let n: SyntaxNode | null = root.descendantForIndex(i); n && n.type !== 'module'; n = n.parent) {
    if (n.type === 'function_definition') unit = n;
    top = n;
  }
  return unit ?? top;
}

/** The one top-level statement that holds [a, b) (undefined when the range spans several or none). */
function topAt(root: SyntaxNode, a: number, b: number): SyntaxNode | undefined {
  const top = (i: number) => {
    let t: SyntaxNode | undefined;
    for (let n: SyntaxNode | null = root.descendantForIndex(i); n && n.type !== 'module'; n = n.parent) t = n;
    return t;
  };
  const x = top(a);
  const y = top(Math.max(a, b - 1));
  return x && y && x.equals(y) ? x : undefined;
}

function errorRanges(root: SyntaxNode): [number, number][] {
  const out: [number, number][] = [];
  const walk = (n: SyntaxNode): void => {
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
  /** The tree being linted, until it becomes `tree` (freed if the lint fails). */
  private parsed: Tree | undefined;
  private findings: Finding[] = [];
  private key = '';
  private text = '';
  /** The file's import bindings and where its import statements are, reused while edits stay clear of them. */
  private bindings: Map<string, string> | undefined;
  private importRanges: (readonly [number, number])[] = [];
  /** What the rules read of the whole file (lint.ts rulesFileKey), and where: asked again only after an edit there or on lines with one of FILE_KEY_WORDS. */
  private fileKey: FilesKey | undefined;
  /** Functions whose summaries or callers findings read (summaries.ts), from the lints so far. */
  private refs: CrossRefs = { defs: new Set(), callers: new Set() };
  private cross = new CrossSignatures();
  /** The module facts of the text last linted, and the bindings they were read with. */
  private modules: ModuleFacts | undefined;
  private modulesBindings: ReadonlyMap<string, string> | undefined;
  /** Facts of the functions an edit did not touch, kept for the next re-lint (analysis/carried.ts). */
  private readonly facts = new CarriedFacts();

  constructor(
    private readonly parser: PythonParser,
    private opts: LintOptions = {},
  ) {}

  setOptions(opts: LintOptions): void {
    this.opts = opts;
    this.tree?.delete();
    this.tree = undefined;
  }

  /**
   * Lints `text`, the document after `changes` (none: a full parse). Throws NotLintedError for a
   * text the rules cannot walk; the next update then starts afresh (its old tree may be edited).
   */
  update(text: string, changes: readonly TextChange[] = []): Finding[] {
    try {
      return this.relint(text, changes);
    } catch (e) {
      this.parsed?.delete();
      this.parsed = undefined;
      this.dispose();
      this.findings = [];
      this.bindings = undefined;
      this.importRanges = [];
      this.fileKey = undefined;
      this.refs = { defs: new Set(), callers: new Set() };
      this.cross.clear();
      this.modules = undefined;
      this.facts.clear();
      this.cross.facts.clear();
      throw NotLintedError.from(e);
    }
  }

  private relint(text: string, changes: readonly TextChange[]): Finding[] {
    const old = this.tree;
    const incremental = !!old && changes.length > 0;
    let kept: Finding[] = [];
    let importsMayChange = !incremental || !this.bindings;
    let fileKeyMayChange = !incremental || !this.fileKey;
    // Re-lint the whole file when a finding a loop reports in a helper it calls (helperStores.ts) exists
    // (it depends on both units), or when several changes at once touch a mode switch (HR004 reads
    // those from other statements; one change is compared by modeSignature below).
    let modeMayChange = this.findings.some(
      (f) => f.evidence && (f.start.line < f.evidence.loopLine || f.start.line > (f.evidence.loopEndLine ?? f.evidence.loopLine)),
    );
    // The units one change edits, in the tree before it (several changes at once: none, and the text decides).
    const c0 = changes[0];
    const oldRoot = old && rootOf(old, this.text);
    const units =
      incremental && changes.length === 1 && c0
        ? [unitAt(oldRoot!, c0.offset), unitAt(oldRoot!, Math.max(c0.offset, c0.offset + c0.length - 1))].filter(
            (u, i, xs): u is SyntaxNode => !!u && xs.findIndex((x) => !!x && x.equals(u)) === i,
          )
        : [];
    // The top-level statement one change is inside, and what it showed about modules (analysis/moduleEvidence.ts).
    const topBefore = incremental && changes.length === 1 && c0 ? topAt(oldRoot!, c0.offset, c0.offset + c0.length) : undefined;
    const evidenceBefore = topBefore && unitEvidence(topBefore);
    // What loops in other statements read of the edited units' mode switches, before the edit.
    const modeBefore = units.length ? modeSignature(units) : undefined;
    // What other functions' findings read from the edited ones (summaries, callers), before the edit.
    let crossBefore: string | undefined;
    if (incremental && (this.refs.defs.size || this.refs.callers.size)) {
      crossBefore = units.length ? this.cross.of(old!, oldRoot!, units, this.bindings ?? new Map(), this.refs) : undefined;
      if (crossBefore === undefined) modeMayChange = true; // several changes at once: re-lint all
    }
    // The old tree is edited below: what was kept of it is no longer true of it.
    this.cross.clear();
    if (incremental) {
      kept = this.findings;
      let cur = this.text;
      for (const c of changes) {
        old.edit(toEdit(c));
        this.facts.shift(c.offset, c.length, c.text.length);
        this.cross.facts.shift(c.offset, c.length, c.text.length);
        kept = kept.map((f) => shift(f, c)).filter((f): f is Finding => !!f);
        const d = c.text.length - c.length;
        const removed = cur.slice(c.offset, c.offset + c.length);
        if (removed.includes('import') || this.importRanges.some(([a, b]) => c.offset <= b && c.offset + c.length >= a))
          importsMayChange = true;
        // The lines the change touched as they were: a key word there may be what it removes.
        const wasFrom = cur.lastIndexOf('\n', c.offset - 1) + 1;
        const wasTo = cur.indexOf('\n', c.offset + c.length);
        const were = cur.slice(wasFrom, wasTo < 0 ? cur.length : wasTo);
        if (this.fileKey?.spans.some(([a, b]) => c.offset <= b && c.offset + c.length >= a) || FILE_KEY_WORDS.some((w) => were.includes(w)))
          fileKeyMayChange = true;
        if (this.fileKey)
          this.fileKey = {
            ...this.fileKey,
            spans: this.fileKey.spans.map(([a, b]) =>
              a >= c.offset + c.length ? ([a + d, b + d] as const) : b >= c.offset ? ([a, b + d] as const) : ([a, b] as const),
            ),
          };
        if (modeBefore === undefined && MODE.test(removed)) modeMayChange = true;
        this.importRanges = this.importRanges.map(([a, b]) => (a >= c.offset + c.length ? ([a + d, b + d] as const) : ([a, b] as const)));
        cur = changes.length === 1 ? text : cur.slice(0, c.offset) + c.text + cur.slice(c.offset + c.length);
        // The edited lines as they are now (an import typed letter by letter).
        const from = cur.lastIndexOf('\n', c.offset - 1) + 1;
        const to = cur.indexOf('\n', c.offset + c.text.length);
        const lines = cur.slice(from, to < 0 ? cur.length : to);
        if (lines.includes('import')) importsMayChange = true;
        if (FILE_KEY_WORDS.some((w) => lines.includes(w))) fileKeyMayChange = true;
        if (modeBefore === undefined && MODE.test(lines)) modeMayChange = true;
      }
    }
    const tree = (this.parsed = this.parser.parse(text, incremental ? old : undefined));
    const root = rootOf(tree, text);
    // What findings depend on beyond their own statement: imports, file pragmas, DataLoader workers.
    if (importsMayChange) {
      const statements = importStatements(root);
      this.bindings = importBindings(root, statements);
      this.importRanges = statements.map((n) => [n.startIndex, n.endIndex] as const);
    }
    const bindings = this.bindings!;
    if (fileKeyMayChange) this.fileKey = rulesFileKey(root, text);
    // Which names hold a module (a change re-lints all): the old facts when the one statement edited shows what it showed.
    const topAfter = topBefore && c0 ? topAt(root, c0.offset, c0.offset + c0.text.length) : undefined;
    // (The same start: an edit that split or merged statements changes where the one around it starts or ends.)
    const same =
      topAfter &&
      topBefore &&
      topAfter.startIndex === topBefore.startIndex &&
      topAfter.endIndex - topBefore.endIndex === c0!.text.length - c0!.length;
    if (this.modules && same && unitEvidence(topAfter) === evidenceBefore && this.modulesBindings === bindings)
      sameModuleFacts(text, bindings, this.modules);
    this.modules = moduleFacts(root, bindings);
    this.modulesBindings = bindings;
    const key = `${importsKey(bindings)}\n${filePragmaKey(text)}\n${this.fileKey!.key}\n${this.modules.key}`;
    let out: Finding[];
    if (incremental && key === this.key && !modeMayChange) {
      const touched = [
        ...tree.getChangedRanges(old).flatMap((r) => [r.startIndex, Math.max(r.startIndex, r.endIndex - 1)]),
        ...changes.flatMap((c) => [c.offset, c.offset + c.text.length]),
      ];
      const units: SyntaxNode[] = [];
      for (const i of touched) {
        const u = unitAt(root, Math.min(i, text.length));
        if (u && !units.some((x) => x.equals(u))) units.push(u);
      }
      // A unit inside another is covered by it.
      const dirty = units.filter(
        (u) => !units.some((x) => x !== u && x.startIndex <= u.startIndex && u.endIndex <= x.endIndex && !x.equals(u)),
      );
      const inDirty = (f: Finding) => dirty.some((t) => f.startIndex >= t.startIndex && f.startIndex < t.endIndex);
      // An edit that changed what a helper returns (or a caller's context) changes findings elsewhere: re-lint all.
      if (
        (crossBefore !== undefined && this.cross.of(tree, root, dirty, bindings, this.refs) !== crossBefore) ||
        (modeBefore !== undefined && modeSignature(dirty) !== modeBefore)
      )
        out = this.full(tree, text, bindings);
      else
        out = [...kept.filter((f) => !inDirty(f)), ...lintTree(tree, text, this.opts, dirty, bindings, this.fileKey, this.facts)].sort(
          (a, b) => a.startIndex - b.startIndex || a.rule.localeCompare(b.rule),
        );
      const r = crossRefs(root.tree);
      for (const d of r.defs) this.refs.defs.add(d);
      for (const d of r.callers) this.refs.callers.add(d);
    } else out = this.full(tree, text, bindings);
    old?.delete();
    this.tree = tree;
    this.parsed = undefined;
    this.key = key;
    this.text = text;
    if (root.hasError && kept.length) {
      const broken = errorRanges(root);
      // A broken region spans at least its lines: keep old findings on those lines.
      const lineOf = (i: number) => text.slice(0, i).split('\n').length - 1;
      const lines = broken.map(([a, b]) => [lineOf(a), lineOf(b)] as const);
      const keep = kept.filter(
        (f) =>
          lines.some(([a, b]) => f.start.line >= a - 1 && f.start.line <= b + 1) &&
          !out.some((g) => g.rule === f.rule && g.start.line === f.start.line),
      );
      out = [...out, ...keep].sort((a, b) => a.startIndex - b.startIndex);
    }
    this.findings = out;
    // The nodes read during this lint stay with the tree while it is kept (megabytes for a large
    // file): let them go; the next edit reads the few it needs afresh.
    forgetRoot(tree);
    return out;
  }

  /** A full lint, which also starts the record of cross-function reads afresh. */
  private full(tree: Tree, text: string, bindings: Map<string, string>): Finding[] {
    this.facts.clear();
    this.cross.facts.clear();
    const out = lintTree(tree, text, this.opts, undefined, bindings, this.fileKey, this.facts);
    const r = crossRefs(rootOf(tree, text).tree);
    this.refs = { defs: new Set(r.defs), callers: new Set(r.callers) };
    return out;
  }

  dispose(): void {
    this.tree?.delete();
    this.tree = undefined;
  }
}
