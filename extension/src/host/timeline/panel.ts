import * as vscode from 'vscode';
import { windowNoteBeside } from '../../core/run/recordingMode';
import type { FromTimeline, ToTimeline } from '../../core/timeline/protocol';
import { isFromTimeline } from '../../core/timeline/protocol';
import { TimelineSession } from '../../core/timeline/session';
import { CommandId } from '../commandIds';
import type { WorkspaceMapping } from '../memory/mapping';
import { openFrameLine } from '../memory/openFrame';
import type { MemoryView } from '../memory/view';
import type { GpuMonitor } from '../gpu/monitor';
import type { RunController } from '../runs';
import { LiveTimeline } from './live';
import { timelineHtml } from './html';

/**
 * The memory timeline panel (one at a time). It follows the memory view (the snapshot and instant
 * the editors show), or a running job in live mode. The page keeps no data: on `ready` (first load,
 * shown again after being hidden, or a window reload) it gets everything again from here.
 */
export class TimelinePanel implements vscode.Disposable {
  static readonly viewType = 'headroom.timeline';
  private panel: vscode.WebviewPanel | undefined;
  private panelSubs: vscode.Disposable[] = [];
  private session: TimelineSession | undefined;
  /** What the session was built for: the view's current object (replaced on every new snapshot or device). */
  private sessionOf: object | undefined;
  private sentInstant = -2;
  private ids = 0;
  private readonly live: LiveTimeline;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
    private readonly runs: RunController,
    private readonly log: vscode.LogOutputChannel,
    /** Loads a snapshot into the view again (a panel restored after a reload). */
    private readonly reopen: (path: string, device: number | null) => Promise<void>,
    gpus?: GpuMonitor,
  ) {
    this.live = new LiveTimeline(runs, (m) => this.post(m), gpus);
    this.subs = [view.onDidSettle(() => this.viewChanged()), runs.onDidChange(() => this.live.changed()), this.live];
  }

  /** Opens or reveals the panel: live while a run goes, else the snapshot the editors show. */
  show(): void {
    if (this.runs.current) this.live.follow(this.runs.current);
    if (this.panel) {
      this.panel.reveal(undefined, false);
      this.sync();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    this.attach(
      vscode.window.createWebviewPanel(
        TimelinePanel.viewType,
        vscode.l10n.t('Memory Timeline'),
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: true, localResourceRoots: [dist] },
      ),
    );
  }

  /** A panel VS Code restored after a reload: show what it showed, loading its snapshot again if needed. */
  async revive(panel: vscode.WebviewPanel, state: { path?: unknown; device?: unknown } | undefined): Promise<void> {
    this.panel?.dispose();
    this.attach(panel);
    const path = typeof state?.path === 'string' ? state.path : undefined;
    if (!this.view.current && path) {
      this.post({ type: 'empty', message: vscode.l10n.t('Loading {0}…', path) });
      await this.reopen(path, typeof state?.device === 'number' ? state.device : null);
    }
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = timelineHtml(panel.webview, dist);
    this.panelSubs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        if (isFromTimeline(m)) void this.handle(m).catch((e: Error) => this.log.error(`timeline: ${e.stack ?? e.message}`));
        else this.log.warn('timeline: dropped a malformed message from the page');
      }),
      panel.onDidDispose(() => {
        for (const s of this.panelSubs.splice(0)) s.dispose();
        this.panel = undefined;
        this.session = undefined;
        this.sessionOf = undefined;
      }),
    );
  }

  private post(m: ToTimeline): void {
    // A hidden page is discarded; it asks for everything again (`ready`) when shown.
    if (this.panel?.visible) void this.panel.webview.postMessage(m);
  }

  private async handle(m: FromTimeline): Promise<void> {
    const s = this.session;
    const mine = 'session' in m && s !== undefined && m.session === s.id;
    switch (m.type) {
      case 'ready':
        return this.sync();
      case 'view':
        if (mine) this.post(s.frame(m.seq, m.request));
        return;
      case 'element': {
        const info = mine ? s.element(m.id) : undefined;
        if (info) this.post(info);
        return;
      }
      case 'segments':
        if (mine) this.post(s.segments(m.index));
        return;
      case 'setInstant':
        if (mine) await this.view.setInstant(m.index);
        return;
      case 'openFrame':
        return this.openFrame(m.file, m.line);
      case 'selectDevice':
        await vscode.commands.executeCommand(CommandId.SelectDevice);
        return;
      case 'showFlame': {
        // At the page's instant: the editors' one unless the page names another of its snapshot.
        const moved = mine && m.index !== this.view.current?.instant.index;
        await vscode.commands.executeCommand(CommandId.ShowFlameGraph, ...(moved ? [m.index] : []));
        return;
      }
    }
  }

  /** Everything the page needs now. */
  private sync(): void {
    if (!this.panel) return;
    if (this.live.following) return this.live.resend();
    const c = this.view.current;
    if (!c) {
      this.panel.title = vscode.l10n.t('Memory Timeline');
      return this.post({
        type: 'empty',
        message: vscode.l10n.t(
          'Open a memory snapshot (Headroom: Open Memory Snapshot…) or run a script with memory tracking to see its timeline.',
        ),
      });
    }
    if (this.sessionOf !== c || !this.session) {
      const t0 = performance.now();
      // A windowed run's snapshot says so in the title: events between windows are not in its trace.
      const windowed = windowNoteBeside(c.path, c.analysis.device, c.analysis.replay.peak.requestedBytes)
        ? ` ${vscode.l10n.t('(stacks recorded in windows)')}`
        : '';
      this.session = new TimelineSession(++this.ids, {
        snapshot: c.snapshot,
        analysis: c.analysis,
        title: `${c.label}${windowed}`,
        path: c.path,
        instant: { index: c.instant.index, label: c.instantLabel },
      });
      this.sessionOf = c;
      this.log.info(`timeline: ${c.analysis.replay.n} events of device ${c.device} modelled in ${(performance.now() - t0).toFixed(0)} ms`);
    }
    this.sentInstant = c.instant.index;
    this.panel.title = vscode.l10n.t('Memory Timeline: {0}', c.label);
    this.post(this.session.init());
  }

  private viewChanged(): void {
    if (!this.panel) return;
    if (this.live.following) {
      // A finished run's curve stays until the editors move to a snapshot (often the run's own).
      if (this.live.running) return;
      this.live.stop();
    }
    const c = this.view.current;
    if (c && c === this.sessionOf && this.session) {
      // Same snapshot: only the instant can have moved (edits and toggles fire too).
      if (c.instant.index !== this.sentInstant) {
        this.sentInstant = c.instant.index;
        this.post(this.session.instant(c.instant.index, c.instantLabel));
      }
      return;
    }
    this.sync();
  }

  private async openFrame(file: string, line: number): Promise<void> {
    await openFrameLine(this.mapping, file, line);
  }

  dispose(): void {
    for (const s of [...this.subs.splice(0), ...this.panelSubs.splice(0)]) s.dispose();
    this.panel?.dispose();
  }
}
