import * as vscode from 'vscode';
import type { Sample } from '../../core/run/protocol';
import type { LiveMarker, LiveSample, ToTimeline } from '../../core/timeline/protocol';
import { formatBytes } from '../../shared/format';
import type { GpuMonitor } from '../gpu/monitor';
import type { LiveRun } from '../../core/run/liveRun';
import type { RunController } from '../runs';

const MIN_INTERVAL_MS = 250;

const toSample = (s: Sample, processUsed: number | null): LiveSample => ({
  t: s.t,
  allocated: s.allocated,
  reserved: s.reserved,
  requested: s.requested,
  deviceUsed: s.device_used ?? null,
  processUsed,
});

/**
 * Live mode: a running job's samples for one stream (the first to report: rank 0 under torchrun)
 * sent at most 4 times a second, only what is new; everything again after the page reloads.
 */
export class LiveTimeline implements vscode.Disposable {
  private run: LiveRun | undefined;
  private key: string | undefined;
  /** Time of the newest sample sent (the history drops its oldest half at its cap, so no index). */
  private sentT = -Infinity;
  private sentEvents = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;

  constructor(
    private readonly runs: RunController,
    private readonly post: (m: ToTimeline) => void,
    private readonly gpus?: GpuMonitor,
  ) {}

  get following(): boolean {
    return this.run !== undefined;
  }

  get running(): boolean {
    return this.run !== undefined && this.runs.current === this.run;
  }

  follow(run: LiveRun): void {
    if (this.run === run) return;
    this.run = run;
    this.key = undefined;
  }

  stop(): void {
    this.run = undefined;
    this.key = undefined;
  }

  /** The run reported something: send what is new, no sooner than 250 ms after the last batch. */
  changed(): void {
    if (!this.run || this.timer) return;
    const wait = Math.max(0, this.last + MIN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.push(false);
    }, wait);
  }

  resend(): void {
    this.push(true);
  }

  private push(reset: boolean): void {
    const run = this.run;
    if (!run) return;
    this.last = Date.now();
    this.key ??= run.history.keys().next().value;
    const all = this.key ? (run.history.get(this.key) ?? []) : [];
    if (reset) {
      this.sentT = -Infinity;
      this.sentEvents = 0;
    }
    let lo = 0;
    for (let hi = all.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (all[mid]!.t <= this.sentT) lo = mid + 1;
      else hi = mid;
    }
    const pid = this.key ? run.latest.get(this.key)?.pid : undefined;
    // The driver's reading nearest each sample (polled once a second while a run goes).
    const samples = all.slice(lo).map((x) => toSample(x, pid === undefined || !this.gpus ? null : this.gpus.usedAt(pid, x.t / 1000)));
    const events = run.events.slice(this.sentEvents);
    if (!reset && !samples.length && !events.length) return;
    if (samples.length) this.sentT = samples.at(-1)!.t;
    this.sentEvents = run.events.length;
    const latest = this.key ? run.latest.get(this.key) : undefined;
    const device = all[0]?.device ?? '?';
    const where =
      latest?.rank !== null && latest?.rank !== undefined
        ? vscode.l10n.t('rank {0}, device {1}', latest.rank, device)
        : vscode.l10n.t('device {0}', device);
    const markers: LiveMarker[] = events.map((e) => ({ t: e.t, kind: markerKind(e.event), label: markerLabel(e) }));
    const last = [...samples].reverse().find((x) => x.processUsed !== null);
    const beside = last
      ? ` · ${vscode.l10n.t('this process {0} on the device, non-PyTorch {1}', formatBytes(last.processUsed!), formatBytes(last.processUsed! - last.reserved))}`
      : '';
    const mode =
      run.record === 'full'
        ? vscode.l10n.t('stacks: every event')
        : run.windows.open
          ? vscode.l10n.t('stacks: recording (window {0})', run.windows.count)
          : vscode.l10n.t('stacks: off between windows');
    this.post({
      type: 'live',
      session: 0,
      title: `${run.name} (${where}) — ${this.running ? vscode.l10n.t('live') : vscode.l10n.t('finished')} · ${mode}${beside}`,
      reset,
      samples,
      markers,
      running: this.running,
    });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

function markerKind(event: string): LiveMarker['kind'] {
  if (event === 'snapshot' || event === 'oom' || event === 'backward') return event;
  return event === 'window_open' || event === 'window_close' ? 'window' : 'exit';
}

/** Agent fields are data: only numbers and the snapshot kind's short text reach a label. */
function markerLabel(e: { event: string; kind?: unknown; window?: unknown; calls?: unknown }): string {
  switch (e.event) {
    case 'snapshot':
      return vscode.l10n.t('snapshot ({0})', String(e.kind ?? '').slice(0, 40));
    case 'oom':
      return vscode.l10n.t('out of memory');
    case 'exit':
      return vscode.l10n.t('exit');
    case 'window_open':
      return vscode.l10n.t('stack recording on (window {0})', Number(e.window) || 0);
    case 'window_close':
      return vscode.l10n.t('stack recording off (window {0}, after {1} backward() calls)', Number(e.window) || 0, Number(e.calls) || 0);
    default:
      return 'backward()';
  }
}
