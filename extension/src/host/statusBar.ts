import * as vscode from 'vscode';
import { formatBytes } from '../shared/format';
import { processMemory } from '../core/gpu/process';
import { sourceLabel } from '../core/gpu/probe';
import { processLabel } from '../core/run/processes';
import { gib, statusText } from '../core/run/status';
import { markdownText } from '../core/text';
import { plain } from '../shared/text';
import { CommandId } from './commandIds';
import type { GpuMonitor } from './gpu/monitor';
import type { LiveRun } from '../core/run/liveRun';
import type { RunController } from './runs';

const REFRESH_MS = 250;

/**
 * One status bar item: while a run goes, allocated / reserved of the worst rank with the peak; a
 * warning background when reserved-but-unallocated is large or retries/OOMs happen; the last
 * run's peak when idle; hidden when there is nothing to show. At most 4 updates a second.
 */
/** Which recording mode the run uses and where it stands: the figures above are exact either way. */
function recordingCell(live: LiveRun): string {
  if (live.record === 'full') return vscode.l10n.t('every event (full)');
  if (!live.windows.count) return vscode.l10n.t('in windows');
  return live.windows.open
    ? vscode.l10n.t('in windows: recording now (window {0})', live.windows.count)
    : vscode.l10n.t('in windows: off until the peak rises ({0} so far)', live.windows.count);
}

export class MemoryStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('headroom.memory', vscode.StatusBarAlignment.Right, 100);
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[];
  /** Device figures are polled while a run goes. */
  private polling: vscode.Disposable | undefined;

  constructor(
    private readonly runs: RunController,
    private readonly gpus: GpuMonitor,
  ) {
    this.item.name = vscode.l10n.t('Headroom GPU Memory');
    this.subs = [runs.onDidChange(() => this.schedule()), gpus.onDidChange(() => this.schedule())];
    this.render();
  }

  /** "device used by this process" and "non-PyTorch", from the driver, for the worst rank's process. */
  private deviceRows(pid: number | undefined, device: number, reserved: number): string[] {
    const r = this.gpus.latest;
    if (!r) return [];
    if (!r.ok)
      return [`| ${vscode.l10n.t('device used by this process')} | ${vscode.l10n.t('not available: {0}', r.reason.replace(/\|/g, '/'))} |`];
    const m = pid === undefined ? undefined : processMemory(r.snapshot, pid, reserved, device);
    if (!m)
      return [
        `| ${vscode.l10n.t('device used by this process')} | ${vscode.l10n.t('not listed by the driver ({0})', sourceLabel(r.snapshot.source))} |`,
      ];
    return [
      `| ${vscode.l10n.t('device used by this process')} | ${formatBytes(m.used)} (${sourceLabel(r.snapshot.source)}) |`,
      `| ${vscode.l10n.t('non-PyTorch = device used − reserved')} | ${vscode.l10n.t("{0} (CUDA context, libraries' workspaces)", formatBytes(m.nonPyTorch))} |`,
    ];
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
    if (live && !this.polling) this.polling = this.gpus.want();
    if (!live && this.polling) {
      this.polling.dispose();
      this.polling = undefined;
    }
    const st = live?.status();
    if (live && st) {
      const w = st.worst;
      this.item.text = `$(pulse) ${statusText(st)}`;
      this.item.backgroundColor = st.warnings.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      const md = new vscode.MarkdownString(undefined, true);
      const who = st.streams > 1 ? ` ${vscode.l10n.t('({0}, the fullest of {1} processes)', processLabel(w), st.streams)}` : '';
      md.appendMarkdown(`${vscode.l10n.t('**Headroom — {0}**{1}, device {2}', markdownText(live.name), who, w.device)}\n\n`);
      md.appendMarkdown(
        [
          `| | |`,
          `|---|---|`,
          `| ${vscode.l10n.t('allocated')} | ${formatBytes(w.allocated)} |`,
          `| ${vscode.l10n.t('reserved')} | ${formatBytes(w.reserved)} |`,
          `| ${vscode.l10n.t('active')} | ${formatBytes(w.active)} |`,
          `| ${vscode.l10n.t('reserved but unallocated')} | ${formatBytes(w.reserved - w.allocated)} |`,
          `| ${vscode.l10n.t('inactive split (non-releasable)')} | ${formatBytes(w.inactive_split)} |`,
          `| ${vscode.l10n.t('peak allocated')} | ${formatBytes(st.peakAllocated)} |`,
          `| ${vscode.l10n.t('cudaMalloc retries')} | ${w.retries} |`,
          `| ${vscode.l10n.t('OOMs')} | ${w.ooms} |`,
          ...(w.device_used !== undefined
            ? [
                `| ${vscode.l10n.t('device used (all of it)')} | ${formatBytes(w.device_used)}${w.device_total ? ` ${vscode.l10n.t('of {0}', formatBytes(w.device_total))}` : ''} |`,
              ]
            : []),
          ...this.deviceRows(w.pid, w.device, w.reserved),
          `| ${vscode.l10n.t('stack recording')} | ${recordingCell(live)} |`,
        ].join('\n'),
      );
      for (const warning of st.warnings) md.appendMarkdown(`\n\n$(warning) ${markdownText(warning)}`);
      md.appendMarkdown(
        `\n\n[$(graph-line) ${vscode.l10n.t('Show the live memory timeline')}](command:${CommandId.ShowTimeline}) · ${vscode.l10n.t('click for the run summary.')}`,
      );
      md.isTrusted = { enabledCommands: [CommandId.ShowTimeline] };
      this.item.tooltip = md;
      this.item.command = { title: vscode.l10n.t('Open Run'), command: CommandId.OpenRun, arguments: [vscode.Uri.file(live.dir)] };
      this.item.show();
    } else if (live) {
      this.item.text = `$(loading~spin) ${vscode.l10n.t('{0}: waiting for the first CUDA use', plain(live.name).replace(/\$\(/g, '$\u200b('))}`;
      this.item.tooltip = vscode.l10n.t('Recording starts when the workload first uses CUDA.');
      this.item.backgroundColor = undefined;
      this.item.show();
    } else if (this.runs.last) {
      const l = this.runs.last;
      this.item.text = l.nothing
        ? `$(circle-slash) ${vscode.l10n.t('nothing recorded')}`
        : `$(history) ${vscode.l10n.t('peak {0} GiB', gib(l.peakAllocated))}`;
      this.item.tooltip = l.nothing
        ? vscode.l10n.t('Last Headroom run: {0}, exit code {1}. {2}', plain(l.name), l.exitCode ?? '?', plain(l.nothing))
        : vscode.l10n.t(
            'Last Headroom run: {0}, exit code {1}, peak allocated {2}. Click to open it.',
            plain(l.name),
            l.exitCode ?? '?',
            formatBytes(l.peakAllocated),
          );
      this.item.backgroundColor = undefined;
      this.item.command = { title: vscode.l10n.t('Open Run'), command: CommandId.OpenRun, arguments: [vscode.Uri.file(l.dir)] };
      this.item.show();
    } else this.item.hide();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.polling?.dispose();
    this.item.dispose();
  }
}
