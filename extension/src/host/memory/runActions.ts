import * as vscode from 'vscode';
import { CommandId } from '../commandIds';
import type { RunDiagnostics } from './runDiagnostics';

/** On a line where the shown run leaked or ran out of memory: open the timeline at that moment. */
export class RunMomentActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly run: RunDiagnostics) {}

  provideCodeActions(
    doc: vscode.TextDocument,
    range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === 'headroom');
    return this.run.momentsAt(doc.uri.fsPath, range.start.line + 1, range.end.line + 1).map((m) => {
      const title =
        m.what === 'leak'
          ? vscode.l10n.t('Show the leak’s last iteration on the memory timeline (event #{0})', m.index)
          : vscode.l10n.t('Show the OOM on the memory timeline (event #{0})', m.index);
      const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
      a.command = { command: CommandId.ShowTimeline, title: a.title, arguments: [m.index] };
      a.diagnostics = ours;
      return a;
    });
  }
}
