import * as vscode from 'vscode';
import { messageText } from '../../core/text';
import type { WorkspaceMapping } from './mapping';

/**
 * Opens a frame's line (a path of the machine that ran the job) in the workspace file the path
 * mapping gives, as the timeline, the summary page and the doctor's "Open the line" all do. A
 * path that maps to no workspace file is never opened as it is: a snapshot names any file it likes.
 */
export async function openFrameLine(mapping: WorkspaceMapping, file: string, line: number, column = vscode.ViewColumn.One): Promise<void> {
  const local = (await mapping.resolve([file], true)).get(file);
  if (!local) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Headroom: {0} is not in this workspace. Map its folder with the headroom.pathMappings setting.', messageText(file)));
    return;
  }
  const at = Number.isSafeInteger(line) && line > 0 ? line - 1 : 0;
  await vscode.window.showTextDocument(vscode.Uri.file(local), { selection: new vscode.Range(at, 0, at, 0), viewColumn: column, preview: false });
}
