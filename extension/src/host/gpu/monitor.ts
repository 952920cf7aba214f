import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
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
  /** Each process's device use over time (ms since the epoch), for the live timeline. */
  private readonly history = new Map<number, { t: number; used: number }[]>();

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
    if (r.ok)
      for (const d of r.snapshot.devices)
        for (const p of d.processes) {
          if (p.used === null) continue;
          const h = this.history.get(p.pid) ?? [];
          if (h.length >= 20_000) h.splice(0, 10_000);
          h.push({ t: r.snapshot.at, used: p.used });
          this.history.set(p.pid, h);
        }
    this.changed.fire(r);
  }

  /** What `pid` held on the device at time `t` (ms): the reading nearest to it within 1.5 s. */
  usedAt(pid: number, t: number): number | null {
    const h = this.history.get(pid);
    if (!h?.length) return null;
    let lo = 0;
    for (let hi = h.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (h[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    const near = [h[lo - 1], h[lo]].filter((x): x is { t: number; used: number } => !!x && Math.abs(x.t - t) <= 1500).sort((a, b) => Math.abs(a.t - t) - Math.abs(b.t - t))[0];
    return near?.used ?? null;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.changed.dispose();
  }
}
