import * as vscode from 'vscode';

/**
 * "Headroom: Show What Assistants See": calls the summary tool through VS Code's own tool service
 * (vscode.lm.invokeTool, as an agent-mode chat does) on the snapshot shown, and opens the answer
 * as a plain-text document, headed by the Headroom tools the editor has registered.
 */
export async function showAssistantSummary(): Promise<void> {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  if (!lm?.invokeTool) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Headroom: this editor has no language-model tools (VS Code 1.99 or newer has them).'),
    );
    return;
  }
  const names = lm.tools.filter((t) => t.name.startsWith('headroom_')).map((t) => t.name);
  let text: string;
  try {
    const r = await lm.invokeTool('headroom_summary', { input: {}, toolInvocationToken: undefined });
    text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  } catch (e) {
    text = vscode.l10n.t('the summary tool failed: {0}', (e as Error).message);
  }
  const doc = await vscode.workspace.openTextDocument({
    language: 'plaintext',
    content: `${vscode.l10n.t('tools registered: {0}', names.join(', '))}\n\n${text}\n`,
  });
  await vscode.window.showTextDocument(doc, { preview: true });
}
