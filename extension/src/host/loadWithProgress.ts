import * as vscode from 'vscode';
import { isSnapshotError } from '../core/errors';
import type { SnapshotErrorCode } from '../core/errors';
import { formatBytes } from '../shared/format';
import { limitsFromSetting } from '../core/limits';
import { messageText } from '../core/text';
import { loadSnapshotFile } from '../core/snapshot/load';
import type { Snapshot } from '../core/snapshot/model';

/**
 * Loads a snapshot behind a cancellable progress notification. Returns undefined when the user
 * cancelled or the file is not a usable snapshot (after saying why, unless its code is `quiet`).
 */
export async function loadWithProgress(
  uri: vscode.Uri,
  log: vscode.LogOutputChannel,
  quiet: readonly SnapshotErrorCode[] = [],
): Promise<Snapshot | undefined> {
  const name = uri.path.split('/').pop() ?? uri.fsPath;
  // Raised only from user or machine settings: the setting is machine-scoped, so a workspace's own
  // settings (a stranger's repository) cannot lift the limits on its own snapshots.
  const { limits, problems } = limitsFromSetting(vscode.workspace.getConfiguration('headroom').get('limits'));
  for (const p of problems) log.warn(p);
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading {0}', name), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        try {
          return await loadSnapshotFile(uri.fsPath, {
            signal: abort.signal,
            limits,
            onProgress: (read, total) => {
              if (!total) return;
              const pct = (read / total) * 100;
              progress.report({ increment: pct - reported, message: vscode.l10n.t('{0} of {1}', formatBytes(read), formatBytes(total)) });
              reported = pct;
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (e) {
    if (isSnapshotError(e)) {
      if (e.code === 'cancelled') return undefined;
      log.warn(`${uri.fsPath}: ${e.code}: ${e.message}`);
      if (!quiet.includes(e.code))
        void vscode.window.showErrorMessage(vscode.l10n.t('Headroom cannot open {0}: {1}', messageText(name), messageText(e.message)));
      return undefined;
    }
    throw e;
  }
}
