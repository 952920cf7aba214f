import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { recordGpuAtOom } from '../core/gpu/atOom';
import type { GpuProbe } from '../core/gpu/types';
import { planRun } from '../core/run/launch';
import type { AgentEvent, Sample } from '../core/run/protocol';
import { bestSnapshot, readRun, recordExit } from '../core/run/runFolder';
import { explainNothingRecorded } from '../core/run/nothingRecorded';
import { RunServer } from '../core/run/server';
import { Config } from './config';
import { checkInterpreter, probe, resolveInterpreter } from './python';
import type { RunOrigins } from './runOrigin';
import { stepDone } from './walkthrough';

const HISTORY_CAP = 1_000_000;
const LIVE_EVENTS = new Set(['snapshot', 'oom', 'backward', 'exit', 'window_open', 'window_close']);

export interface RunRequest {
  script: vscode.Uri;
  /** Launch through `python -m torch.distributed.run --nproc-per-node N`. */
  nproc?: number;
  /** Allocator settings over the configured ones (a remedy's re-run), for this run only. */
  allocConf?: Record<string, string>;
  /** A per-process memory cap for this run only (a remedy's re-run). */
  capGib?: number;
}

export interface LiveRun {
  name: string;
  dir: string;
  server: RunServer;
  execution?: vscode.TaskExecution;
  /** Every agent's pid so far (the run's own processes on the GPU). */
  pids: Set<number>;
  /** Latest sample per agent stream and device. */
  latest: Map<string, { rank: number | null; pid: number; sample: Sample }>;
  /** Every sample per stream key, oldest first (capped), for the live timeline. */
  history: Map<string, Sample[]>;
  /** Agent events worth a marker on the live timeline. */
  events: AgentEvent[];
  /** How the run records stacks (settings at launch), and its windows so far (window events). */
  record: 'window' | 'full';
  windows: { count: number; open: boolean };
  /** Highest max_allocated any stream reported (streams leave `latest` when they disconnect). */
  peak: number;
  started: number;
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
    const run: LiveRun = {
      name: basename(req.script.fsPath),
      dir: '',
      server: undefined as unknown as RunServer,
      pids: new Set(),
      latest: new Map(),
      history: new Map(),
      events: [],
      record: config.run.record ?? 'window',
      windows: { count: 0, open: false },
      peak: 0,
      started: Date.now(),
    };
    run.server = await RunServer.listen({
      connect: (s) => {
        run.pids.add(s.hello.pid);
        this.log.info(`agent connected: pid ${s.hello.pid}${s.hello.rank !== null ? `, rank ${s.hello.rank}` : ''}`);
      },
      message: (s, m) => {
        if (m.type === 'event' && LIVE_EVENTS.has(m.event) && run.events.length < HISTORY_CAP) run.events.push(m);
        if (m.type === 'event' && m.event === 'window_open') run.windows = { count: run.windows.count + 1, open: true };
        if (m.type === 'event' && m.event === 'window_close') run.windows = { ...run.windows, open: false };
        if (m.type === 'event' && m.event === 'oom' && typeof m.device === 'number' && this.gpus && run.dir) {
          const at = { t: m.t, device: m.device, run: [...run.pids] };
          void this.gpus().then((probe) => recordGpuAtOom(probe, run.dir, at));
        }
        if (m.type === 'sample') {
          const key = `${s.id}/${m.device}`;
          run.latest.set(key, { rank: s.hello.rank, pid: s.hello.pid, sample: m });
          const h = run.history.get(key) ?? [];
          if (h.length >= HISTORY_CAP) h.splice(0, h.length >> 1); // keep the newest half: a day at 10 samples/s fits
          h.push(m);
          run.history.set(key, h);
          run.peak = Math.max(run.peak, m.max_allocated);
          this.changed.fire();
        } else if (m.type === 'log')
          this.log[m.level === 'error' ? 'error' : m.level === 'warning' ? 'warn' : 'info'](`agent ${s.hello.pid}: ${m.message}`);
        else if (m.type === 'event' && m.event === 'snapshot' && typeof m.path === 'string') {
          this.log.info(`snapshot (${String(m.kind)}) written: ${m.path}`);
          if (this.current === run) this.onSnapshot(run, m.path, String(m.kind));
        }
      },
      disconnect: (s) => {
        for (const k of run.latest.keys()) if (k.startsWith(`${s.id}/`)) run.latest.delete(k);
        this.changed.fire();
      },
      refused: (why) => this.log.warn(`refused a connection to the run channel: ${why}`),
    });
    const settings = {
      ...config.run,
      ...(req.allocConf ? { allocConf: { ...config.run.allocConf, ...req.allocConf } } : {}),
      ...(req.capGib ? { capGib: req.capGib } : {}),
    };
    const plan = planRun({
      script: req.script.fsPath,
      runsDir,
      agentDir: this.agentDir,
      socket: run.server.address,
      token: run.server.token,
      settings,
    });
    run.dir = plan.runDir;
    const args = req.nproc
      ? ['-m', 'torch.distributed.run', '--standalone', '--nproc-per-node', String(req.nproc), req.script.fsPath, ...config.args]
      : [req.script.fsPath, ...config.args];
    mkdirSync(plan.runDir, { recursive: true });
    this.origins?.record(plan.runDir);
    writeFileSync(
      join(plan.runDir, 'launch.json'),
      JSON.stringify(
        {
          command: [interp.path, ...args],
          interpreter: interp,
          cwd,
          started: new Date().toISOString(),
          launcher: 'vscode',
          settings,
          status: 'running',
        },
        null,
        1,
      ),
    );
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
      run.execution = await vscode.tasks.executeTask(task);
    } catch (e) {
      this.current = undefined;
      await run.server.close();
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
    else run.execution?.terminate();
  }

  private async ended(e: vscode.TaskProcessEndEvent): Promise<void> {
    const run = this.current;
    if (!run || e.execution !== run.execution) return;
    this.current = undefined;
    await run.server.close();
    let peak = run.peak;
    let nothing: string | undefined;
    try {
      const folder = readRun(run.dir, { samples: 'none' });
      recordExit(folder, { code: e.exitCode ?? null, signal: null, endedAt: new Date().toISOString() });
      for (const p of folder.processes) for (const s of p.samples) peak = Math.max(peak, s.max_allocated);
      // A run that ended before holding CUDA memory says why, not "peak 0.00 GiB".
      if (peak === 0 && !folder.processes.some((p) => bestSnapshot(p)))
        nothing = explainNothingRecorded(run.dir).sentence.replace(/^headroom: /, '');
    } catch (err) {
      this.log.warn(`run folder ${run.dir}: ${(err as Error).message}`);
    }
    this.last = { name: run.name, dir: run.dir, exitCode: e.exitCode, peakAllocated: peak, ...(nothing ? { nothing } : {}) };
    this.changed.fire();
    this.onFinished(this.last);
  }

  dispose(): void {
    void this.current?.server.close();
    for (const s of this.subs.splice(0)) s.dispose();
  }
}
