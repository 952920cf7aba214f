import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../shared/format';
import { buildReport } from '../core/report';
import { isProcessFolder, processLabel } from '../core/run/processes';
import { readRun } from '../core/run/runFolder';
import { messageText } from '../core/text';
import { Config } from './config';
import { afterDecorations } from './afterDecorations';
import { showSnapshot, showSummaryPanel } from './openSnapshot';
import type { OpenSnapshotDeps } from './openSnapshot';
import { chooseProcess, pick, processesWithSnapshots, processTitle, runContext } from './runPick';
import type { LiveRun } from '../core/run/liveRun';
import type { FinishedRun, RunController } from './runs';

function activePythonFile(uri?: vscode.Uri): vscode.Uri | undefined {
  if (uri instanceof vscode.Uri) return uri;
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId === 'python') return doc.uri;
  void vscode.window.showWarningMessage(vscode.l10n.t('Open a Python file to run it with memory tracking.'));
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
    title: vscode.l10n.t('torchrun {0}', basename(script.fsPath)),
    prompt: vscode.l10n.t('Processes per node (--nproc-per-node)'),
    value: '2',
    validateInput: (v) => (/^[1-9]\d*$/.test(v) ? undefined : vscode.l10n.t('a positive whole number')),
  });
  if (n) await runs.start({ script, nproc: Number(n) });
}

/**
 * A snapshot the running workload just wrote, put onto the code. Loads never overlap: one written
 * while another loads waits, and only the newest waiting one is loaded.
 */
export class LiveSnapshots {
  private busy = false;
  private next: { run: LiveRun; path: string; kind: string } | undefined;

  constructor(private readonly deps: OpenSnapshotDeps) {}

  offer(run: LiveRun, path: string, kind: string): void {
    if (!new Config(vscode.Uri.file(run.dir)).annotateWhileRunning) return;
    // Only files in the run's own process folders: the path comes over the channel.
    const dir = dirname(resolve(path));
    if (dirname(dir) !== dirname(run.dir) || !isProcessFolder(basename(dir), basename(run.dir))) {
      this.deps.log.warn(`ignored a snapshot outside the run folder: ${path}`);
      return;
    }
    this.next = { run, path, kind };
    if (!this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      for (let n = this.next; n; n = this.next) {
        this.next = undefined;
        const proc = readRun(n.run.dir, { samples: 'none' }).processes.find((p) => p.dir === dirname(n.path));
        const label = proc ? processLabel(proc) : '';
        await showSnapshot(this.deps, vscode.Uri.file(n.path), {
          title: vscode.l10n.t('{0} (running, {1})', `${n.run.name}${label ? ` ${label}` : ''}`, n.kind),
          ...(proc ? runContext(proc) : {}),
        });
      }
    } catch (e) {
      this.deps.log.warn(`could not show the run's snapshot: ${(e as Error).message}`);
    } finally {
      this.busy = false;
    }
  }
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
      openLabel: vscode.l10n.t('Open Run'),
      ...(runsDir && existsSync(runsDir) ? { defaultUri: vscode.Uri.file(runsDir) } : {}),
    });
    dir = chosen?.[0]?.fsPath;
  }
  if (!dir) return;
  let run;
  try {
    run = readRun(dir, { samples: 'tail' });
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Headroom: {0}', messageText((e as Error).message)));
    return;
  }
  const all = processesWithSnapshots(run);
  if (!all.length) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        '{0} has no snapshot yet (recording starts when a process first holds CUDA memory; Headroom: Capture Snapshot Now asks for one).',
        messageText(basename(dir)),
      ),
    );
    return;
  }
  // Several processes (ranks, spawned workers): the user picks one, the fullest first.
  const b = await chooseProcess(run, all);
  if (!b) return;
  if (await showSnapshot(deps, vscode.Uri.file(b.path), { title: processTitle(run, b), ...runContext(b.process) })) {
    await afterDecorations(deps);
    showSummaryPanel(deps);
  }
}

/** A finished run: its peak and top line in a notification, with the summary one click away. */
export async function notifyFinished(deps: OpenSnapshotDeps, run: FinishedRun): Promise<void> {
  try {
    const { best } = pick(run.dir);
    if (!best) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          "Headroom: {0} ended (exit code {1}) without a snapshot: no process held CUDA memory, or recording could not start (see the run folder's agent log).",
          messageText(run.name),
          run.exitCode ?? '?',
        ),
      );
      return;
    }
    // The finished run's memory goes onto the code at once; the summary is one click away.
    if (!(await showSnapshot(deps, vscode.Uri.file(best.path), { title: run.name, ...runContext(best.process) }))) return;
    const c = deps.view.current!;
    const { report } = buildReport(c.snapshot, c.analysis, 'peak', 1);
    const top = report.lines[0];
    const where = top
      ? vscode.l10n.t('; top line {0}:{1} ({2})', messageText(basename(top.file)), top.line, formatBytes(top.self_bytes))
      : '';
    const on = processLabel(best.process) ? ` ${vscode.l10n.t('on {0}', processLabel(best.process))}` : '';
    const show = vscode.l10n.t('Show');
    const pickAction = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Headroom: {0} ended (exit code {1}). Peak {2} requested{3}{4}.',
        messageText(run.name),
        run.exitCode ?? '?',
        formatBytes(report.peak.requested_bytes),
        on,
        where,
      ),
      show,
    );
    if (pickAction === show) showSummaryPanel(deps);
  } catch (e) {
    deps.log.warn(`could not summarize ${run.dir}: ${messageText((e as Error).message)}`);
  }
}
