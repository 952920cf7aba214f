import * as vscode from 'vscode';
import { ProcessHistory } from '../../core/gpu/history';
import { chooseProbe, sourceLabel } from '../../core/gpu/probe';
import { loadAddon, runSmi } from '../../core/gpu/sources';
import type { GpuProbe, GpuResult } from '../../core/gpu/types';

const POLL_MS = 1000;

/**
 * Device memory as the driver sees it, polled once a second while something shows it (a run's
 * status bar, the GPUs page) and not at all otherwise. The source is chosen on first use.
 */
export class GpuMonitor implements vscode.Disposable {
  private probe: Promise<GpuProbe> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private users = 0;
  private readonly changed = new vscode.EventEmitter<GpuResult>();
  readonly onDidChange = this.changed.event;
  latest: GpuResult | undefined;
  /** Each process's device use over time, for the live timeline. */
  readonly history = new ProcessHistory();

  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The chosen source (chosen now if not yet), its reasons logged once. */
  source(): Promise<GpuProbe> {
    this.probe ??= chooseProbe(() => loadAddon(this.extensionPath), runSmi).then((p) => {
      this.log.info(`GPU figures: ${sourceLabel(p.source)}`);
      for (const r of p.fallbackReasons) this.log.info(`GPU figures: ${r}`);
      return p;
    });
    return this.probe;
  }

  /** Polls while the returned disposable lives (several users share one poll). */
  want(): vscode.Disposable {
    if (this.users++ === 0) {
      void this.poll();
      this.timer = setInterval(() => void this.poll(), POLL_MS);
    }
    return new vscode.Disposable(() => {
      if (--this.users === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    });
  }

  private async poll(): Promise<void> {
    const r = await (await this.source()).read();
    this.latest = r;
    if (r.ok) this.history.add(r.snapshot);
    this.changed.fire(r);
  }

  /** What `pid` held on the device at time `t` (ms), from the readings so far. */
  usedAt(pid: number, t: number): number | null {
    return this.history.usedAt(pid, t);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.changed.dispose();
  }
}
