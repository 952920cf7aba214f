import * as vscode from 'vscode';
import { withEvidence } from '../../core/diagnose/evidence';
import type { RunEvidence } from '../../core/diagnose/evidence';
import { joinCells, splitFinding } from '../../core/lint/notebook';
import type { PythonParser } from '../../core/lint/syntax/parser';
import { checkLiveSize, NotLintedError } from '../../core/lint/notLinted';
import { LintSession } from '../../core/lint/session';
import type { Finding, RuleId, Severity } from '../../core/lint/types';
import { LintSettings } from './settings';

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/**
 * Diagnostics for Python as it is typed: `.py` files, untitled buffers and notebook cells (a
 * notebook's code cells are linted together). Needs no workspace trust: nothing runs.
 */
export class LintDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('headroom');
  /** The findings behind each document's diagnostics, for the quick fixes. */
  readonly findings = new Map<string, Finding[]>();
  private readonly sessions = new Map<string, LintSession>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly pending = new Map<string, vscode.TextDocumentContentChangeEvent[]>();
  private readonly subs: vscode.Disposable[];
  /** pyproject.toml's [tool.headroom.lint], else the settings; a change to either re-lints. */
  readonly settings: LintSettings;

  /** Findings as the linter gave them, before a run's evidence was joined in. */
  private readonly raw = new Map<string, { uri: vscode.Uri; found: Finding[] }>();

  /** Documents not linted, and why: said once each until they lint again. */
  private readonly notLinted = new Map<string, string>();

  constructor(
    private readonly parser: PythonParser,
    private readonly docUri: (id: RuleId) => vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    /** A shown run's evidence per file: findings it confirms, or shows cost nothing. */
    private readonly evidence?: { runEvidenceFor(fsPath: string): RunEvidence[]; onDidChange: vscode.Event<void> },
  ) {
    this.settings = new LintSettings(log, () => this.relintAll());
    this.subs = [
      this.collection,
      this.settings,
      ...(evidence ? [evidence.onDidChange(() => [...this.raw.values()].forEach((r) => this.publish(r.uri, r.found)))] : []),
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, [])),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document, e.contentChanges)),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
      vscode.workspace.onDidOpenNotebookDocument((n) => this.lintNotebook(n)),
      vscode.workspace.onDidChangeNotebookDocument((e) => this.lintNotebook(e.notebook)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('headroom.lint')) this.relintAll();
      }),
    ];
    this.relintAll();
  }

  private relintAll(): void {
    this.settings.reset();
    for (const s of this.sessions.values()) s.dispose();
    this.sessions.clear();
    this.collection.clear();
    this.findings.clear();
    for (const d of vscode.workspace.textDocuments) this.schedule(d, []);
    for (const n of vscode.workspace.notebookDocuments) this.lintNotebook(n);
  }

  private applies(d: vscode.TextDocument): boolean {
    if (d.languageId !== 'python' || !['file', 'untitled', 'vscode-notebook-cell'].includes(d.uri.scheme)) return false;
    return this.settings.optionsFor(d.uri) !== undefined;
  }

  private schedule(d: vscode.TextDocument, changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    if (!this.applies(d)) return;
    if (d.uri.scheme === 'vscode-notebook-cell') {
      const nb = vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === d));
      if (nb) this.lintNotebook(nb);
      return;
    }
    const key = d.uri.toString();
    this.pending.set(key, [...(this.pending.get(key) ?? []), ...changes]);
    if (this.timers.has(key)) return;
    // Keystrokes come in bursts: one pass per pause, incremental from the last tree.
    this.timers.set(
      key,
      setTimeout(
        () => {
          this.timers.delete(key);
          const ch = this.pending.get(key) ?? [];
          this.pending.delete(key);
          this.lintDocument(d, ch);
        },
        changes.length ? 120 : 0,
      ),
    );
  }

  private lintDocument(d: vscode.TextDocument, changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    if (d.isClosed) return;
    const key = d.uri.toString();
    const text = d.getText();
    const found = this.lintOrSay(d.uri, () => {
      checkLiveSize(text);
      let s = this.sessions.get(key);
      if (!s) {
        const opts = this.settings.optionsFor(d.uri);
        if (!opts) return [];
        s = new LintSession(this.parser, opts);
        this.sessions.set(key, s);
        changes = [];
      }
      const edits = changes.map((c) => ({
        offset: c.rangeOffset,
        length: c.rangeLength,
        text: c.text,
        start: { line: c.range.start.line, col: c.range.start.character },
        end: { line: c.range.end.line, col: c.range.end.character },
      }));
      return s.update(text, edits);
    });
    this.publish(d.uri, found);
  }

  private dropSession(key: string): void {
    this.sessions.get(key)?.dispose();
    this.sessions.delete(key);
  }

  /**
   * Findings, or none for a file not linted (hostile nesting, or too large to lint on this thread),
   * said in the log once per reason rather than thrown from a timer at every keystroke. Its session
   * (and the trees it holds) goes: the next lint starts afresh.
   */
  private lintOrSay(uri: vscode.Uri, lint: () => Finding[]): Finding[] {
    const key = uri.toString();
    try {
      const found = lint();
      this.notLinted.delete(key);
      return found;
    } catch (e) {
      this.dropSession(key);
      const x = NotLintedError.from(e);
      if (this.notLinted.get(key) !== x.message) {
        this.log.warn(`lint: ${uri.scheme === 'file' ? uri.fsPath : key}: ${x.message}`);
        // Neither nesting nor size: a rule's own failure, whose stack is for a bug report.
        if (x.cause instanceof Error && !(x.cause instanceof RangeError)) this.log.debug(x.cause.stack ?? x.cause.message);
      }
      this.notLinted.set(key, x.message);
      return [];
    }
  }

  private lintNotebook(nb: vscode.NotebookDocument): void {
    const cells = nb.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code && c.document.languageId === 'python');
    const opts = cells.length ? this.settings.optionsFor(nb.uri) : undefined;
    if (!opts) return;
    const texts = cells.map((c) => c.document.getText());
    const { text, starts } = joinCells(texts);
    const s = new LintSession(this.parser, opts);
    const all = this.lintOrSay(nb.uri, () => {
      checkLiveSize(text);
      return s.update(text);
    });
    s.dispose();
    const per = cells.map((): Finding[] => []);
    for (const f of all) {
      const r = splitFinding(f, texts, starts);
      if (r) per[r.cell]!.push(r.finding);
    }
    cells.forEach((c, i) => this.publish(c.document.uri, per[i]!));
  }

  publish(uri: vscode.Uri, raw: Finding[]): void {
    this.raw.set(uri.toString(), { uri, found: raw });
    const found = this.evidence && uri.scheme === 'file' ? withEvidence(raw, this.evidence.runEvidenceFor(uri.fsPath)) : raw;
    this.findings.set(uri.toString(), found);
    this.collection.set(
      uri,
      found.map((f) => {
        const d = new vscode.Diagnostic(
          new vscode.Range(f.start.line, f.start.col, f.end.line, f.end.col),
          f.message,
          SEVERITY[f.severity],
        );
        d.source = 'headroom';
        d.code = { value: f.rule, target: this.docUri(f.rule) };
        return d;
      }),
    );
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.notLinted.delete(key);
    this.raw.delete(key);
    this.dropSession(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    // Diagnostics of files closed stay only if a workspace scan made them.
    if (uri.scheme !== 'file') this.collection.delete(uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.sessions.values()) s.dispose();
    for (const x of this.subs.splice(0)) x.dispose();
  }
}
