import * as vscode from 'vscode';
import { formatBytes } from '../core/format';
import { gib, liveStatus, statusText } from '../core/run/status';
import { CommandId } from './commandIds';
import type { RunController } from './runs';

const REFRESH_MS = 250;

/**
 * One status bar item: while a run goes, allocated / reserved of the worst rank with the peak; a
 * warning background when reserved-but-unallocated is large or retries/OOMs happen; the last
 * run's peak when idle; hidden when there is nothing to show. At most 4 updates a second.
 */
export class MemoryStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('headroom.memory', vscode.StatusBarAlignment.Right, 100);
  private timer: NodeJS.Timeout | undefined;
  private readonly sub: vscode.Disposable;

  constructor(private readonly runs: RunController) {
    this.item.name = 'Headroom GPU Memory';
    this.sub = runs.onDidChange(() => this.schedule());
    this.render();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.render();
    }, REFRESH_MS);
  }

  private render(): void {
    const live = this.runs.current;
    const st = live ? liveStatus(live.latest.values()) : undefined;
    if (live && st) {
      const w = st.worst;
      this.item.text = `$(pulse) ${statusText(st)}`;
      this.item.backgroundColor = st.warnings.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      const md = new vscode.MarkdownString(undefined, true);
      md.appendMarkdown(`**Headroom — ${live.name}**${w.rank !== null ? ` (rank ${w.rank} of ${st.streams})` : ''}, device ${w.device}\n\n`);
      md.appendMarkdown(
        [
          `| | |`,
          `|---|---|`,
          `| allocated | ${formatBytes(w.allocated)} |`,
          `| reserved | ${formatBytes(w.reserved)} |`,
          `| active | ${formatBytes(w.active)} |`,
          `| reserved but unallocated | ${formatBytes(w.reserved - w.allocated)} |`,
          `| inactive split (non-releasable) | ${formatBytes(w.inactive_split)} |`,
          `| peak allocated | ${formatBytes(st.peakAllocated)} |`,
          `| cudaMalloc retries | ${w.retries} |`,
          `| OOMs | ${w.ooms} |`,
          ...(w.device_used !== undefined ? [`| device used (all of it) | ${formatBytes(w.device_used)}${w.device_total ? ` of ${formatBytes(w.device_total)}` : ''} |`] : []),
        ].join('\n'),
      );
      for (const warning of st.warnings) md.appendMarkdown(`\n\n$(warning) ${warning}`);
      md.appendMarkdown(`\n\n[$(graph-line) Show the live memory timeline](command:${CommandId.ShowTimeline}) · click for the run summary.`);
      md.isTrusted = { enabledCommands: [CommandId.ShowTimeline] };
      this.item.tooltip = md;
      this.item.command = { title: 'Open Run', command: CommandId.OpenRun, arguments: [vscode.Uri.file(live.dir)] };
      this.item.show();
    } else if (live) {
      this.item.text = `$(loading~spin) ${live.name}: waiting for the first CUDA use`;
      this.item.tooltip = 'Recording starts when the workload first uses CUDA.';
      this.item.backgroundColor = undefined;
      this.item.show();
    } else if (this.runs.last) {
      const l = this.runs.last;
      this.item.text = `$(history) peak ${gib(l.peakAllocated)} GiB`;
      this.item.tooltip = `Last Headroom run: ${l.name}, exit code ${l.exitCode ?? '?'}, peak allocated ${formatBytes(l.peakAllocated)}. Click to open it.`;
      this.item.backgroundColor = undefined;
      this.item.command = { title: 'Open Run', command: CommandId.OpenRun, arguments: [vscode.Uri.file(l.dir)] };
      this.item.show();
    } else this.item.hide();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.sub.dispose();
    this.item.dispose();
  }
}
