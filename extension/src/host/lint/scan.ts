import * as vscode from 'vscode';
import { lintText } from '../../core/lint/lint';
import { checkLiveSize, NotLintedError } from '../../core/lint/notLinted';
import type { PythonParser } from '../../core/lint/syntax/parser';
import type { LintDiagnostics } from './diagnostics';

const SKIP = '{**/node_modules/**,**/.git/**,**/site-packages/**,**/.venv/**,**/venv/**,**/.headroom/**}';

/** `Headroom: Lint Workspace…`: every Python file, with progress; findings land in the Problems panel. */
export async function lintWorkspaceCommand(parser: PythonParser, lint: LintDiagnostics, log: vscode.LogOutputChannel): Promise<void> {
  const files = await vscode.workspace.findFiles('**/*.py', SKIP);
  let count = 0;
  let withFindings = 0;
  const decoder = new TextDecoder();
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Headroom: linting Python files'), cancellable: true },
    async (progress, token) => {
      for (const [i, uri] of files.entries()) {
        if (token.isCancellationRequested) break;
        const opts = lint.settings.optionsFor(uri);
        if (!opts) continue;
        const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        try {
          const text = open ? open.getText() : decoder.decode(await vscode.workspace.fs.readFile(uri));
          // On the extension host's thread too: the same size limit as linting as you type.
          checkLiveSize(text);
          const r = lintText(parser, text, opts);
          r.tree.delete();
          lint.publish(uri, r.findings);
          count += r.findings.length;
          if (r.findings.length) withFindings++;
        } catch (e) {
          log.warn(`lint: ${uri.fsPath}: ${e instanceof NotLintedError ? e.message : `not read (${(e as Error).message})`}`);
        }
        if (i % 20 === 0)
          progress.report({ message: vscode.l10n.t('{0} of {1}', i + 1, files.length), increment: (20 / files.length) * 100 });
      }
    },
  );
  void vscode.window.showInformationMessage(
    count === 1
      ? vscode.l10n.t('Headroom: {0} finding in {1} of {2} Python files (see the Problems panel).', count, withFindings, files.length)
      : vscode.l10n.t('Headroom: {0} findings in {1} of {2} Python files (see the Problems panel).', count, withFindings, files.length),
  );
}
