import * as vscode from 'vscode';
import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import type { CallWindow } from '../core/analysis/backward';
import { buildReport } from '../core/report';
import type { FromWebview } from '../core/protocol';
import { loadWithProgress } from './loadWithProgress';
import { SummaryPanel } from './summaryPanel';

export interface OpenSnapshotDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** Where panels are kept so they are disposed with the extension. */
  track(d: vscode.Disposable): void;
}

/** `Headroom: Open Memory Snapshot…`: pick a pickle, load it, show its summary. */
export async function openSnapshotCommand(deps: OpenSnapshotDeps, uri?: vscode.Uri): Promise<void> {
  const target =
    uri ??
    (
      await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Open Snapshot',
        filters: { 'PyTorch memory snapshots': ['pickle', 'pkl', 'gz'], 'All files': ['*'] },
      })
    )?.[0];
  if (!target) return;
  await showSnapshotSummary(deps, target);
}

/** Loads a snapshot (with progress) and shows its summary panel. */
export async function showSnapshotSummary(deps: OpenSnapshotDeps, target: vscode.Uri, title?: string, calls?: readonly CallWindow[]): Promise<void> {
  const s = await loadWithProgress(target, deps.log);
  if (!s) return;
  const device = defaultDevice(s);
  if (device === undefined) {
    void vscode.window.showWarningMessage('This snapshot has no device with a trace or segments: there is nothing to show.');
    return;
  }
  const { report } = buildReport(s, analyzeDevice(s, device, undefined, calls), 'peak', 20);
  deps.log.info(`opened ${target.fsPath}: device ${device}, ${report.events} events, peak ${report.peak.requested_bytes} B`);
  const name = title ?? target.path.split('/').pop() ?? 'snapshot';
  const open = (m: FromWebview): void => {
    if (m.type !== 'openLine') return;
    void vscode.window.showTextDocument(vscode.Uri.file(m.file), { selection: new vscode.Range(m.line - 1, 0, m.line - 1, 0) });
  };
  deps.track(new SummaryPanel(deps.extensionUri, { type: 'summary', title: name, path: target.fsPath, report }, open));
}
