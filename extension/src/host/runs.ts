import { dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import type { GpuProbe } from '../core/gpu/types';
import { LiveRun } from '../core/run/liveRun';
import { Config } from './config';
import { checkInterpreter, probe, resolveInterpreter } from './python';
import type { RunOrigins } from './runOrigin';
import { stepDone } from './walkthrough';

export interface RunRequest {
  script: vscode.Uri;
  /** Launch through `python -m torch.distributed.run --nproc-per-node N`. */
  nproc?: number;
  /** Allocator settings over the configured ones (a remedy's re-run), for this run only. */
  allocConf?: Record<string, string>;
  /** A per-process memory cap for this run only (a remedy's re-run). */
  capGib?: number;
}

export interface FinishedRun {
  name: string;
  dir: string;
  exitCode: number | undefined;
  peakAllocated: number;
  /** Why nothing was recorded (no snapshot, no CUDA memory held), as one sentence; else undefined. */
  nothing?: string;
}

/**
 * Runs workloads with the agent through VS Code tasks (output and Ctrl-C behave as usual), hosts
 * the channel's server for each run, and tells listeners (the status bar) what changed.
 */
export class RunController implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  current: LiveRun | undefined;
  last: FinishedRun | undefined;
  /** The current run's task (set once VS Code started it). */
  private execution: vscode.TaskExecution | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly agentDir: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly onFinished: (run: FinishedRun) => void,
    /** A snapshot the running workload wrote (a new peak, a capture, an OOM). */
    private readonly onSnapshot: (run: LiveRun, path: string, kind: string) => void = () => undefined,
    /** The GPU source, read at an OOM to record who else held the device. */
    private readonly gpus?: () => Promise<GpuProbe>,
    /** Where the run folders this workspace's Headroom wrote are remembered (a re-run from them asks nothing). */
    private readonly origins?: RunOrigins,
  ) {
    this.subs.push(
      this.changed,
      vscode.tasks.onDidEndTaskProcess((e) => void this.ended(e)),
    );
  }

  async start(req: RunRequest): Promise<boolean> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Running a workload executes workspace code: Headroom runs only in a trusted workspace.'),
      );
      return false;
    }
    if (this.current) {
      void vscode.window.showWarningMessage(vscode.l10n.t('A Headroom run is in progress ({0}): stop it first.', this.current.name));
      return false;
    }
    const folder = vscode.workspace.getWorkspaceFolder(req.script);
    const cwd = folder?.uri.fsPath ?? dirname(req.script.fsPath);
    const config = new Config(req.script);
    const interp = await resolveInterpreter(req.script, config, this.log);
    if (!(await checkInterpreter(interp, await probe(interp, cwd)))) return false;
    stepDone('ranScript');

    const runsDir = isAbsolute(config.runsFolder) ? config.runsFolder : join(cwd, config.runsFolder);
    const settings = {
      ...config.run,
      ...(req.allocConf ? { allocConf: { ...config.run.allocConf, ...req.allocConf } } : {}),
      ...(req.capGib ? { capGib: req.capGib } : {}),
    };
    const args = req.nproc
      ? ['-m', 'torch.distributed.run', '--standalone', '--nproc-per-node', String(req.nproc), req.script.fsPath, ...config.args]
      : [req.script.fsPath, ...config.args];
    const run: LiveRun = await LiveRun.start({
      script: req.script.fsPath,
      runsDir,
      agentDir: this.agentDir,
      settings,
      launch: { command: [interp.path, ...args], interpreter: interp, cwd, launcher: 'vscode' },
      ...(this.gpus ? { gpus: this.gpus } : {}),
      on: {
        connect: (s) => this.log.info(`agent connected: pid ${s.hello.pid}${s.hello.rank !== null ? `, rank ${s.hello.rank}` : ''}`),
        changed: () => this.changed.fire(),
        log: (s, m) =>
          this.log[m.level === 'error' ? 'error' : m.level === 'warning' ? 'warn' : 'info'](`agent ${s.hello.pid}: ${m.message}`),
        snapshot: (path, kind) => {
          this.log.info(`snapshot (${kind}) written: ${path}`);
          if (this.current === run) this.onSnapshot(run, path, kind);
        },
        refused: (why) => this.log.warn(`refused a connection to the run channel: ${why}`),
      },
    });
    const plan = run.plan;
    this.origins?.record(plan.runDir);
    const task = new vscode.Task(
      { type: 'headroom', script: req.script.fsPath },
      folder ?? vscode.TaskScope.Workspace,
      vscode.l10n.t('{0} (memory tracking)', `${run.name}${req.nproc ? ` ×${req.nproc}` : ''}`),
      'Headroom',
      new vscode.ProcessExecution(interp.path, args, { cwd, env: { ...config.env, ...plan.env } }),
    );
    task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, clear: true, focus: false, panel: vscode.TaskPanelKind.Dedicated };
    this.current = run;
    this.changed.fire();
    const conf = plan.env.PYTORCH_CUDA_ALLOC_CONF ?? plan.env.PYTORCH_ALLOC_CONF;
    const cap = plan.env.HEADROOM_CAP_GIB;
    this.log.info(
      `run ${plan.runId}: ${conf ? `PYTORCH_CUDA_ALLOC_CONF=${conf} ` : ''}${cap ? `HEADROOM_CAP_GIB=${cap} ` : ''}${interp.path} ${args.join(' ')} (interpreter from ${interp.source})`,
    );
    try {
      this.execution = await vscode.tasks.executeTask(task);
    } catch (e) {
      this.current = undefined;
      await run.close();
      this.changed.fire();
      throw e;
    }
    return true;
  }

  capture(): void {
    if (!this.current?.server.connected.length) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('No running workload is recording yet (recording starts at its first CUDA use).'),
      );
      return;
    }
    this.current.server.broadcast({ type: 'capture' });
    void vscode.window.showInformationMessage(
      vscode.l10n.t("Snapshot requested: it is written after the workload's next backward() (or at exit)."),
    );
  }

  stop(): void {
    const run = this.current;
    if (!run) return;
    if (run.server.connected.length) run.server.broadcast({ type: 'stop' });
    else this.execution?.terminate();
  }

  private async ended(e: vscode.TaskProcessEndEvent): Promise<void> {
    const run = this.current;
    if (!run || e.execution !== this.execution) return;
    this.current = undefined;
    this.execution = undefined;
    let peak = run.peak;
    let nothing: string | undefined;
    try {
      const end = await run.finish({ code: e.exitCode ?? null, signal: null });
      peak = end.peak;
      // A run that ended before holding CUDA memory says why, not "peak 0.00 GiB".
      if (peak === 0 && end.nothing) nothing = end.nothing.sentence.replace(/^headroom: /, '');
    } catch (err) {
      this.log.warn(`run folder ${run.dir}: ${(err as Error).message}`);
    }
    this.last = { name: run.name, dir: run.dir, exitCode: e.exitCode, peakAllocated: peak, ...(nothing ? { nothing } : {}) };
    this.changed.fire();
    this.onFinished(this.last);
  }

  dispose(): void {
    void this.current?.close();
    for (const s of this.subs.splice(0)) s.dispose();
  }
}
