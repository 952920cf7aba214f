import * as vscode from 'vscode';
import { explainOomText, omittedNote, placeOf } from '../core/diagnose/explainText';
import type { ExplainedOom } from '../core/diagnose/explainText';
import { recentRuns, withRunEvidence } from '../core/diagnose/oomEvidence';
import { renderDiagnosis } from '../core/diagnose/oomText';
import { parseOomMessages } from '../core/oomMessage';

/** Read-only tabs holding the doctor's text, one per explained text. */
export class OomExplanations implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'headroom-oom';
  private readonly texts = new Map<string, string>();
  private n = 0;

  /** `runsDir`: the workspace's runs folder, whose snapshots of the same OOM are better evidence. */
  constructor(private readonly runsDir: () => string | undefined = () => undefined) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /**
   * "Headroom: Explain CUDA Out-of-Memory Error…": the OOM messages in the editor's selection (a
   * log, a notebook output pasted), else in the whole file when it is a log, else on the clipboard
   * (copied from a terminal), else pasted into a box. Every format PyTorch has printed is read.
   */
  async explain(): Promise<void> {
    // Finding the messages is enough to choose the text; the doctor reads it once, in show().
    const ed = vscode.window.activeTextEditor;
    let text = ed && !ed.selection.isEmpty ? ed.document.getText(ed.selection) : '';
    if (!parseOomMessages(text).length && ed && ed.document.languageId !== 'python') text = ed.document.getText();
    // A browser-hosted editor may refuse the clipboard: then the box below asks for the text.
    if (!parseOomMessages(text).length)
      text = await vscode.env.clipboard.readText().then(
        (t) => t,
        () => '',
      );
    if (!parseOomMessages(text).length) {
      text =
        (await vscode.window.showInputBox({
          title: vscode.l10n.t('Headroom: explain a CUDA out-of-memory error'),
          prompt: vscode.l10n.t('Paste the error (from a terminal, a log or a notebook)'),
          ignoreFocusOut: true,
          validateInput: (v) => (parseOomMessages(v).length ? undefined : vscode.l10n.t('No CUDA out-of-memory message in this text.')),
        })) ?? '';
    }
    await this.show(text);
  }

  /** One tab with the doctor's reading of each message in `text` (nothing when there is none). */
  async show(text: string): Promise<void> {
    const explained = explainOomText(text);
    let found: ExplainedOom[] = explained.found;
    if (!found.length) return;
    const root = this.runsDir();
    if (root) found = await withRunEvidence(found, ...recentRuns(root)).catch(() => found);
    const path = `/OOM ${++this.n}.txt`;
    const notes = explained.omitted ? [omittedNote(explained.omitted) + '\n'] : [];
    this.texts.set(path, [...found.map((e, i) => renderDiagnosis(e.diagnosis, placeOf(found, i))), ...notes].join('\n'));
    await vscode.window.showTextDocument(vscode.Uri.from({ scheme: OomExplanations.scheme, path }), { preview: false });
  }
}
