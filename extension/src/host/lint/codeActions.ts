import * as vscode from 'vscode';
import type { Finding } from '../../core/lint/types';
import { CommandId } from '../commandIds';
import type { LintDiagnostics } from './diagnostics';

/** Quick fixes for Headroom's diagnostics: the rule's own fixes, and "ignore on this line". */
export class LintCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly lint: LintDiagnostics) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const findings = this.lint.findings.get(doc.uri.toString()) ?? [];
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      if (d.source !== 'headroom') continue;
      const rule = typeof d.code === 'object' ? String(d.code.value) : String(d.code);
      const f = findings.find((x) => x.rule === rule && x.start.line === d.range.start.line && x.start.col === d.range.start.character);
      if (!f) continue;
      for (const fix of f.fixes) out.push(this.action(doc, d, fix.title, fix.edits, fix.preferred));
      out.push(this.ignore(doc, d, f));
    }
    return out;
  }

  private action(
    doc: vscode.TextDocument,
    d: vscode.Diagnostic,
    title: string,
    edits: Finding['fixes'][number]['edits'],
    preferred: boolean,
  ): vscode.CodeAction {
    const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
    a.diagnostics = [d];
    a.isPreferred = preferred;
    a.edit = new vscode.WorkspaceEdit();
    for (const e of edits) a.edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.start), doc.positionAt(e.end)), e.text);
    // Runs after the edit: the Getting Started walkthrough's step completes on it (onCommand).
    a.command = { title, command: CommandId.QuickFixApplied };
    return a;
  }

  /** `# headroom: ignore[HR001]` at the end of the line (merged into a pragma already there). */
  private ignore(doc: vscode.TextDocument, d: vscode.Diagnostic, f: Finding): vscode.CodeAction {
    const line = doc.lineAt(f.start.line);
    const m = /#\s*headroom:\s*ignore\[([^\]]*)\]/.exec(line.text);
    const a = new vscode.CodeAction(vscode.l10n.t('Ignore {0} on this line', f.rule), vscode.CodeActionKind.QuickFix);
    a.diagnostics = [d];
    a.edit = new vscode.WorkspaceEdit();
    if (m) {
      const at = line.range.start.translate(0, m.index + m[0].length - 1);
      a.edit.insert(doc.uri, at, `, ${f.rule}`);
    } else a.edit.insert(doc.uri, line.range.end, `  # headroom: ignore[${f.rule}]`);
    return a;
  }
}
