import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ProcessHistory } from '../../core/gpu/history';
import { chooseProbe, sourceLabel } from '../../core/gpu/probe';
import type { NvmlAddon, SmiRunner } from '../../core/gpu/probe';
import type { GpuProbe, GpuResult } from '../../core/gpu/types';

const POLL_MS = 1000;

/** The addon for this platform: in a platform VSIX, else a development build; an Error says why not. */
export function loadAddon(extensionPath: string): NvmlAddon | Error {
  const candidates = [join(extensionPath, 'dist', 'native', `${process.platform}-${process.arch}`, 'headroom_nvml.node'), join(extensionPath, 'native', 'build', 'Release', 'headroom_nvml.node')];
  const path = candidates.find((p) => existsSync(p));
  if (!path) return new Error(`no addon for ${process.platform}-${process.arch} in this package (the universal VSIX has none)`);
  try {
    // A plain require at run time: esbuild leaves it alone, and a broken binary is caught here.
    const addon = (module.require as (p: string) => NvmlAddon)(path);
    addon.available(); // smoke test: a binary that loads but cannot run fails here, not later
    return addon;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

const runSmi: SmiRunner = (args) =>
  new Promise((resolve) => {
    execFile('nvidia-smi', args, { timeout: 5000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) resolve({ ok: false, reason: `${(stderr || stdout || err.message).trim()}` });
      else resolve({ ok: true, stdout });
    });
  });

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
