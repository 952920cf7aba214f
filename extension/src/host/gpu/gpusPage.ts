import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { renderGpus } from '../../core/gpu/render';
import type { GpuResult } from '../../core/gpu/types';
import type { GpuMonitor } from './monitor';

const URI = vscode.Uri.parse('headroom-gpus:/GPUs.txt');

/** A command line for a pid, where this machine's /proc shows it (local and Remote-SSH hosts). */
function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 120) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * "Headroom: Show GPUs": every GPU and every process on it in a read-only editor tab, refreshed
 * every second while the tab is open, whether or not a run is going.
 */
export class GpusPage implements vscode.TextDocumentContentProvider, vscode.Disposable {
  static readonly scheme = 'headroom-gpus';
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private polling: vscode.Disposable | undefined;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly monitor: GpuMonitor) {
    this.subs = [
      monitor.onDidChange(() => this.polling && this.changed.fire(URI)),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.toString() !== URI.toString()) return;
        this.polling?.dispose();
        this.polling = undefined;
      }),
    ];
  }

  provideTextDocumentContent(): string {
    const r: GpuResult = this.monitor.latest ?? { ok: false, source: 'none', reason: vscode.l10n.t('reading the devices…') };
    const pids = r.ok ? r.snapshot.devices.flatMap((d) => d.processes.map((p) => p.pid)) : [];
    return renderGpus(r, new Map(pids.map((p) => [p, commandOf(p) ?? ''] as const)));
  }

  async show(): Promise<void> {
    this.polling ??= this.monitor.want();
    const doc = await vscode.workspace.openTextDocument(URI);
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.polling?.dispose();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}
