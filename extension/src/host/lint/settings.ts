import * as vscode from 'vscode';
import { LintConfigError } from '../../core/lint/config';
import { LintConfigs } from '../../core/lint/configLookup';
import { lintPlan } from '../../core/lint/lintPlan';
import type { EditorLintSettings } from '../../core/lint/lintPlan';
import { RULES } from '../../core/lint/lint';
import type { LintOptions } from '../../core/lint/lint';
import type { RuleId, Severity } from '../../core/lint/types';

/** The lint settings: `headroom.lint.enable`, `.rules` ({"HR005": "off" | "info" | …}), `.exclude` globs. */
export function editorLintSettings(uri: vscode.Uri): { enabled: boolean; settings: EditorLintSettings } {
  const c = vscode.workspace.getConfiguration('headroom.lint', uri);
  const severity: EditorLintSettings['severity'] = {};
  for (const [id, v] of Object.entries(c.get<Record<string, string>>('rules', {}))) {
    if (id in RULES && ['off', 'error', 'warning', 'info'].includes(v)) severity[id as RuleId] = v as Severity | 'off';
  }
  const rel = vscode.workspace.asRelativePath(uri, false);
  return { enabled: c.get<boolean>('enable', true), settings: { severity, exclude: c.get<string[]>('exclude', []), rel } };
}

/**
 * How each document lints: the project's pyproject.toml `[tool.headroom.lint]` where one applies (as
 * `headroom lint` reads it), else the settings; `headroom.lint.enable` stays the user's switch. A
 * malformed file is shown in the Problems panel at its line, and the settings apply meanwhile.
 */
export class LintSettings implements vscode.Disposable {
  private readonly configs = new LintConfigs();
  private readonly problems = vscode.languages.createDiagnosticCollection('headroom-config');
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/pyproject.toml');
  private readonly said = new Set<string>();

  constructor(
    private readonly log: vscode.LogOutputChannel,
    changed: () => void,
  ) {
    this.watcher.onDidChange(changed);
    this.watcher.onDidCreate(changed);
    this.watcher.onDidDelete(changed);
  }

  /** The options to lint a document with, or undefined when it is not linted (off, or excluded). */
  optionsFor(uri: vscode.Uri): LintOptions | undefined {
    const { enabled, settings } = editorLintSettings(uri);
    if (!enabled) return undefined;
    // A notebook cell's URI carries its notebook's path.
    const path = uri.scheme === 'file' || uri.scheme === 'vscode-notebook-cell' ? uri.fsPath : undefined;
    let config: ReturnType<LintConfigs['configFor']>;
    try {
      config = path === undefined ? undefined : this.configs.configFor(path);
    } catch (e) {
      if (!(e instanceof LintConfigError)) throw e;
      this.say(e);
    }
    const plan = lintPlan(path, config, settings);
    return plan.lint ? plan.opts : undefined;
  }

  private say(e: LintConfigError): void {
    if (this.said.has(e.message)) return;
    this.said.add(e.message);
    this.log.warn(`lint: ${e.message} (the headroom.lint settings apply until it is fixed)`);
    const line = Math.max(0, (e.line ?? 1) - 1);
    const d = new vscode.Diagnostic(
      new vscode.Range(line, Math.max(0, (e.col ?? 1) - 1), line, 1e6),
      e.reason,
      vscode.DiagnosticSeverity.Error,
    );
    d.source = 'headroom';
    this.problems.set(vscode.Uri.file(e.file), [d]);
  }

  /** Reads the files again at the next lint (they or the settings changed). */
  reset(): void {
    this.configs.clear();
    this.said.clear();
    this.problems.clear();
  }

  dispose(): void {
    this.watcher.dispose();
    this.problems.dispose();
  }
}
