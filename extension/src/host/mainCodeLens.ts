import * as vscode from 'vscode';
import { CommandId } from './commandIds';

const MAIN = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:/;

/** "Run with Memory Tracking" above `if __name__ == "__main__":`. */
export class MainCodeLens implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.isTrusted) return [];
    const out: vscode.CodeLens[] = [];
    for (let i = 0; i < doc.lineCount; i++) {
      if (MAIN.test(doc.lineAt(i).text)) {
        out.push(
          new vscode.CodeLens(doc.lineAt(i).range, {
            title: `$(pulse) ${vscode.l10n.t('Run with Memory Tracking')}`,
            command: CommandId.RunFile,
            arguments: [doc.uri],
          }),
        );
      }
    }
    return out;
  }
}
