import * as vscode from 'vscode';
import { libraryFileHere } from '../../core/source/libraryFile';
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
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Headroom: {0} is not in this workspace. Map its folder with the headroom.pathMappings setting.', messageText(file)),
    );
    return;
  }
  const at = Number.isSafeInteger(line) && line > 0 ? line - 1 : 0;
  // Noted in the log: when the editor does not come to the front, the log says whether it was asked.
  mapping.log.info(`opening ${local}:${at + 1} (a frame at ${messageText(file)})`);
  await vscode.window
    .showTextDocument(vscode.Uri.file(local), { selection: new vscode.Range(at, 0, at, 0), viewColumn: column, preview: false })
    .then(
      () => undefined,
      (e: unknown) => mapping.log.warn(`could not open ${local}: ${String(e)}`),
    );
}

/**
 * Opens a library frame's line (model code beneath a user line): the workspace's copy when a path
 * mapping names one (a vendored package, a folder mapped onto the cluster's environment), else the
 * installed package's file on this machine, read-only (libraryFileHere says which files qualify).
 */
export async function openLibraryLine(
  mapping: WorkspaceMapping,
  file: string,
  line: number,
  column = vscode.ViewColumn.One,
): Promise<void> {
  const at = Number.isSafeInteger(line) && line > 0 ? line - 1 : 0;
  const selection = new vscode.Range(at, 0, at, 0);
  // No suffix guess: a library's `utils.py` is not the user's.
  const local = (await mapping.resolve([file], false, false)).get(file);
  if (local) {
    await vscode.window.showTextDocument(vscode.Uri.file(local), { selection, viewColumn: column, preview: false });
    return;
  }
  const here = libraryFileHere(file);
  if (!here) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Headroom: {0} is not on this machine. Map its folder with the headroom.pathMappings setting.', messageText(file)),
    );
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(here), { selection, viewColumn: column, preview: true });
  // An installed package is read, not edited: this editor stays read-only for the session.
  await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
}
