import * as vscode from 'vscode';
import { isSnapshotError } from '../core/errors';
import type { SnapshotErrorCode } from '../core/errors';
import { formatBytes } from '../shared/format';
import { limitsFromSetting } from '../core/limits';
import { messageText } from '../core/text';
import { loadProgressively } from '../core/analysis/progressive';
import type { PartialAnswer } from '../core/analysis/partialAnswer';
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
  log.info(`opening ${uri.fsPath}`);
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading {0}', name), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        try {
          let sofar = '';
          return await loadProgressively(uri.fsPath, {
            signal: abort.signal,
            limits,
            onProgress: (read, total) => {
              if (!total) return;
              const pct = (read / total) * 100;
              const message = vscode.l10n.t('{0} of {1}', formatBytes(read), formatBytes(total)) + sofar;
              progress.report({ increment: pct - reported, message });
              reported = pct;
            },
            // The peak and top lines of the part read, while the rest is read (a large file takes a while).
            onPartial: (a) => {
              const text = partialText(a);
              sofar = ` · ${text}`;
              log.info(`${uri.fsPath}: ${text}`);
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

function partialText(a: PartialAnswer): string {
  const lines = a.lines
    .slice(0, 3)
    .map((l) => `${l.file.split('/').pop()}:${l.line} ${formatBytes(l.selfBytes)}`)
    .join(', ');
  const peak = vscode.l10n.t('peak so far {0} ({1} events read)', formatBytes(a.peakBytes), a.events.toLocaleString('en-US'));
  return messageText(lines ? `${peak}: ${lines}` : peak);
}
