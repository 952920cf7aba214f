import * as vscode from 'vscode';
import { diagnoseMessage, renderDiagnosis } from '../core/diagnose/oom';
import { parseOomMessages } from '../core/oomMessage';
import type { OomMessage } from '../core/oomMessage';

/** Read-only tabs holding the doctor's text, one per explained message. */
export class OomExplanations implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'headroom-oom';
  private readonly texts = new Map<string, string>();
  private n = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /**
   * "Headroom: Explain CUDA Out-of-Memory Error…": the OOM messages in the editor's selection (a
   * log, a notebook output pasted), else on the clipboard (copied from a terminal), else pasted
   * into a box. Every format PyTorch has printed is read.
   */
  async explain(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    let ms = parseOomMessages(ed && !ed.selection.isEmpty ? ed.document.getText(ed.selection) : '');
    // A browser-hosted editor may refuse the clipboard: then the box below asks for the text.
    if (!ms.length) ms = parseOomMessages(await vscode.env.clipboard.readText().then((t) => t, () => ''));
    if (!ms.length) {
      const pasted = await vscode.window.showInputBox({
        title: vscode.l10n.t('Headroom: explain a CUDA out-of-memory error'),
        prompt: vscode.l10n.t('Paste the error (from a terminal, a log or a notebook)'),
        ignoreFocusOut: true,
        validateInput: (v) => (parseOomMessages(v).length ? undefined : vscode.l10n.t('No CUDA out-of-memory message in this text.')),
      });
      ms = parseOomMessages(pasted ?? '');
    }
    await this.show(ms);
  }

  /** One tab with the doctor's reading of each message (nothing when there is none). */
  async show(ms: readonly OomMessage[]): Promise<void> {
    if (!ms.length) return;
    const path = `/OOM ${++this.n}.txt`;
    this.texts.set(path, ms.map((m) => renderDiagnosis(diagnoseMessage(m))).join('\n'));
    await vscode.window.showTextDocument(vscode.Uri.from({ scheme: OomExplanations.scheme, path }), { preview: false });
  }
}
