import { basename } from 'node:path';
import { recordGpuAtOom } from '../gpu/atOom';
import { coalesced } from '../gpu/probe';
import type { GpuProbe } from '../gpu/types';
import { planRun } from './launch';
import type { RunPlan, RunSettings } from './launch';
import { recordEnd, writeLaunch } from './launchFile';
import type { EndedRun, LaunchRecord, RunEnd } from './launchFile';
import { LiveRecord } from './liveRecord';
import type { AgentLog, FromAgent } from './protocol';
import type { SamplesMode } from './runFolder';
import { RunServer } from './server';
import type { AgentStream } from './server';

/** What a front end hears of the channel; LiveRecord's bookkeeping is done before each call. */
export interface LiveRunEvents {
  connect?(s: AgentStream): void;
  /** A sample arrived or a stream left: the live figures changed. */
  changed?(): void;
  log?(s: AgentStream, m: AgentLog): void;
  /** The workload wrote a snapshot (a new peak, a capture, an OOM). */
  snapshot?(path: string, kind: string): void;
  refused?(why: string): void;
}

export interface LiveRunOptions {
  script: string;
  runsDir: string;
  agentDir: string;
  settings: RunSettings;
  launch: Omit<LaunchRecord, 'settings'>;
  /** The GPU source, read at an OOM to record who else held the device. */
  gpus?: () => Promise<GpuProbe>;
  on?: LiveRunEvents;
  /** See LiveRecord (0: no timeline, nothing kept). */
  historyCap?: number;
}

/**
 * One run for any front end: its channel, what the agents said (LiveRecord), the GPU readings at
 * OOMs, and its folder from launch.json to the recorded exit. The front end starts the command
 * with plan.env and calls finish when it ends.
 */
export class LiveRun extends LiveRecord {
  readonly name: string;
  readonly started = Date.now();
  readonly record: 'window' | 'full';
  /** GPU readings being recorded (each leaves when written). */
  private readonly readings = new Set<Promise<void>>();
  /** The run's GPU source, asked for at the first OOM, its reads coalesced. */
  private probe: Promise<GpuProbe> | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly opts: LiveRunOptions,
    readonly server: RunServer,
    readonly plan: RunPlan,
  ) {
    super(opts.historyCap);
    this.name = basename(opts.script);
    this.record = opts.settings.record ?? 'window';
  }

  /** Listens, plans the run and writes its folder. */
  static async start(opts: LiveRunOptions): Promise<LiveRun> {
    // No agent knows the token before plan.env reaches the command, so `run` is set before any hello.
    let run: LiveRun | undefined;
    const server = await RunServer.listen({
      connect: (s) => run?.connect(s),
      message: (s, m) => run?.receive(s, m),
      disconnect: (s) => run?.disconnect(s),
      refused: (why) => opts.on?.refused?.(why),
    });
    const { script, runsDir, agentDir, settings } = opts;
    const plan = planRun({ script, runsDir, agentDir, socket: server.address, token: server.token, settings });
    run = new LiveRun(opts, server, plan);
    try {
      writeLaunch(plan.runDir, { ...opts.launch, settings });
    } catch (e) {
      await server.close();
      throw e;
    }
    return run;
  }

  get dir(): string {
    return this.plan.runDir;
  }

  /** Closes the channel and waits for the GPU readings taken at OOMs. */
  close(): Promise<void> {
    this.closing ??= this.server
      .close()
      .then(() => Promise.all(this.readings))
      .then(() => undefined);
    return this.closing;
  }

  /** Closes, then records the exit in the run folder (recordEnd); the peak includes the live one. */
  async finish(end: RunEnd, samples: SamplesMode = 'none'): Promise<EndedRun> {
    await this.close();
    const ended = recordEnd(this.dir, end, samples);
    return { ...ended, peak: Math.max(this.peak, ended.peak) };
  }

  private connect(s: AgentStream): void {
    this.joined(s);
    this.opts.on?.connect?.(s);
  }

  private disconnect(s: AgentStream): void {
    this.left(s);
    this.opts.on?.changed?.();
  }

  private receive(s: AgentStream, m: FromAgent): void {
    const on = this.opts.on;
    if (m.type === 'sample') {
      this.sampled(s, m);
      on?.changed?.();
    } else if (m.type === 'log') on?.log?.(s, m);
    else if (m.type === 'event') {
      this.noted(m);
      if (m.event === 'oom' && typeof m.device === 'number' && this.opts.gpus) {
        const at = { t: m.t, device: m.device, run: [...this.pids] };
        const gpus = this.opts.gpus;
        // One source per run; a source that failed to come is asked for again at the next OOM.
        const probe = (this.probe ??= gpus().then(coalesced, (e: unknown) => {
          this.probe = undefined;
          throw e;
        }));
        const reading = probe.then(
          (p) => recordGpuAtOom(p, this.dir, at),
          () => undefined,
        );
        this.readings.add(reading);
        void reading.then(() => this.readings.delete(reading));
      } else if (m.event === 'snapshot' && typeof m.path === 'string') on?.snapshot?.(m.path, String(m.kind));
    }
  }
}
