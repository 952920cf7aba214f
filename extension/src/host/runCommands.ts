import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../core/format';
import { buildReport } from '../core/report';
import { bestSnapshot, readRun } from '../core/run/runFolder';
import type { BackwardWindow } from '../core/run/runFolder';
import { Config } from './config';
import { showSnapshot, showSummaryPanel } from './openSnapshot';
import type { OpenSnapshotDeps } from './openSnapshot';
import type { FinishedRun, RunController } from './runs';

function activePythonFile(uri?: vscode.Uri): vscode.Uri | undefined {
  if (uri instanceof vscode.Uri) return uri;
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId === 'python') return doc.uri;
  void vscode.window.showWarningMessage('Open a Python file to run it with memory tracking.');
  return undefined;
}

/** `Headroom: Run Python File with Memory Tracking` (editor title run menu, and the __main__ code lens). */
export async function runFileCommand(runs: RunController, uri?: vscode.Uri): Promise<void> {
  const script = activePythonFile(uri);
  if (script) await runs.start({ script });
}

/** `Headroom: Run with torchrun…`: asks for the number of processes. */
export async function runTorchrunCommand(runs: RunController, uri?: vscode.Uri): Promise<void> {
  const script = activePythonFile(uri);
  if (!script) return;
  const n = await vscode.window.showInputBox({
    title: `torchrun ${basename(script.fsPath)}`,
    prompt: 'Processes per node (--nproc-per-node)',
    value: '2',
    validateInput: (v) => (/^[1-9]\d*$/.test(v) ? undefined : 'a positive whole number'),
  });
  if (n) await runs.start({ script, nproc: Number(n) });
}

/** The snapshot of a run to analyze: the rank with the highest recorded peak. */
function pick(dir: string) {
  const run = readRun(dir);
  let best: { path: string; rank: number | null; peak: number; calls: BackwardWindow[]; sources: Record<string, string> | undefined } | undefined;
  for (const p of run.processes) {
    const s = bestSnapshot(p);
    if (!s) continue;
    const peak = Math.max(0, ...p.samples.map((x) => x.max_allocated));
    const sources = p.meta?.sources as Record<string, string> | undefined;
    if (!best || peak > best.peak) best = { path: s.path, rank: p.rank, peak, calls: p.backward, sources };
  }
  return { run, best };
}

/** `Headroom: Open Run…`: any run folder, also one copied from a cluster. */
export async function openRunCommand(deps: OpenSnapshotDeps, uri?: vscode.Uri): Promise<void> {
  let dir = uri?.fsPath;
  if (!dir) {
    const ws = vscode.workspace.workspaceFolders?.[0];
    const runsDir = ws ? join(ws.uri.fsPath, new Config(ws.uri).runsFolder) : undefined;
    const chosen = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      openLabel: 'Open Run',
      ...(runsDir && existsSync(runsDir) ? { defaultUri: vscode.Uri.file(runsDir) } : {}),
    });
    dir = chosen?.[0]?.fsPath;
  }
  if (!dir) return;
  let picked;
  try {
    picked = pick(dir);
  } catch (e) {
    void vscode.window.showErrorMessage(`Headroom: ${(e as Error).message}`);
    return;
  }
  if (!picked.best) {
    void vscode.window.showInformationMessage(`${basename(dir)} has no snapshot yet (recording starts at the first CUDA use; Headroom: Capture Snapshot Now asks for one).`);
    return;
  }
  const b = picked.best;
  const title = `${basename(picked.run.dir)}${b.rank !== null ? ` rank ${b.rank}` : ''}`;
  if (await showSnapshot(deps, vscode.Uri.file(b.path), { title, calls: b.calls, ...(b.sources ? { sources: b.sources } : {}) })) showSummaryPanel(deps);
}

/** A finished run: its peak and top line in a notification, with the summary one click away. */
export async function notifyFinished(deps: OpenSnapshotDeps, run: FinishedRun): Promise<void> {
  try {
    const { best } = pick(run.dir);
    if (!best) {
      void vscode.window.showInformationMessage(`Headroom: ${run.name} ended (exit code ${run.exitCode ?? '?'}) without a snapshot: it never used CUDA, or recording could not start (see the run folder's agent log).`);
      return;
    }
    // The finished run's memory goes onto the code at once; the summary is one click away.
    if (!(await showSnapshot(deps, vscode.Uri.file(best.path), { title: run.name, calls: best.calls, ...(best.sources ? { sources: best.sources } : {}) }))) return;
    const c = deps.view.current!;
    const { report } = buildReport(c.snapshot, c.analysis, 'peak', 1);
    const top = report.lines[0];
    const where = top ? `; top line ${basename(top.file)}:${top.line} (${formatBytes(top.self_bytes)})` : '';
    const pickAction = await vscode.window.showInformationMessage(
      `Headroom: ${run.name} ended (exit code ${run.exitCode ?? '?'}). Peak ${formatBytes(report.peak.requested_bytes)} requested${best.rank !== null ? ` on rank ${best.rank}` : ''}${where}.`,
      'Show',
    );
    if (pickAction === 'Show') showSummaryPanel(deps);
  } catch (e) {
    deps.log.warn(`could not summarize ${run.dir}: ${(e as Error).message}`);
  }
}
