import * as vscode from 'vscode';
import type { FromFlame, ToFlame } from '../../core/flame/protocol';
import { isFromFlame } from '../../core/flame/protocol';
import { FlameIds, flameMinBytes, pruneFlame } from '../../core/flame/prune';
import type { WorkspaceMapping } from '../memory/mapping';
import { openFrameLine, openLibraryLine } from '../memory/openFrame';
import type { MemoryView } from '../memory/view';
import { flameHtml } from './html';

/**
 * The memory flame graph (one panel at a time): the call tree of the memory live at the instant
 * the editors show (MemoryView.treeNow, built once per instant), pruned to what can be drawn, and
 * following the instant as it moves. The page keeps no data: on `ready` it gets everything again.
 */
export class FlamePanel implements vscode.Disposable {
  static readonly viewType = 'headroom.flame';
  private panel: vscode.WebviewPanel | undefined;
  private panelSubs: vscode.Disposable[] = [];
  private session = 0;
  private ids = new FlameIds();
  /** What the page was last sent: the view's current object (new per snapshot or device) at an instant. */
  private sent: { of: object; index: number } | undefined;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
    private readonly log: vscode.LogOutputChannel,
    /** Loads a snapshot into the view again (a panel restored after a reload). */
    private readonly reopen: (path: string, device: number | null) => Promise<void>,
  ) {
    this.subs = [view.onDidSettle(() => this.viewChanged())];
  }

  /** Opens or reveals the panel on the instant the editors show. */
  show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      return this.sync();
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    this.attach(
      vscode.window.createWebviewPanel(
        FlamePanel.viewType,
        vscode.l10n.t('Memory Flame Graph'),
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
    panel.webview.html = flameHtml(panel.webview, dist);
    this.panelSubs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        if (isFromFlame(m)) void this.handle(m).catch((e: Error) => this.log.error(`flame graph: ${e.stack ?? e.message}`));
        else this.log.warn('flame graph: dropped a malformed message from the page');
      }),
      panel.onDidDispose(() => {
        for (const s of this.panelSubs.splice(0)) s.dispose();
        this.panel = undefined;
        this.sent = undefined;
        this.ids = new FlameIds();
      }),
    );
  }

  private post(m: ToFlame): boolean {
    // A hidden page is discarded; it asks for everything again (`ready`) when shown.
    if (!this.panel?.visible) return false;
    void this.panel.webview.postMessage(m);
    return true;
  }

  private async handle(m: FromFlame): Promise<void> {
    if (m.type === 'ready') return this.sync();
    const n = m.session === this.session ? this.ids.nodes.get(m.id) : undefined;
    if (!n) return;
    if (m.type === 'open') {
      if (!n.file) return;
      // Library code: the workspace's copy when mapped, else the installed package's file, read-only.
      return n.kind === 'library' ? openLibraryLine(this.mapping, n.file, n.line) : openFrameLine(this.mapping, n.file, n.line);
    }
    this.post({ type: 'subtree', session: this.session, node: pruneFlame(n, this.ids, { minBytes: flameMinBytes(n.bytes) }, m.id) });
  }

  /** The tree of the instant shown, pruned, to the page. */
  private sync(): void {
    if (!this.panel) return;
    const t0 = performance.now();
    const c = this.view.current;
    const tree = this.view.treeNow();
    this.sent = undefined;
    if (!c || !tree) {
      this.panel.title = vscode.l10n.t('Memory Flame Graph');
      this.post({
        type: 'empty',
        message: vscode.l10n.t('Open a memory snapshot (Headroom: Open Memory Snapshot…) to see the memory live at its peak by call path.'),
      });
      return;
    }
    this.ids = new FlameIds();
    const root = pruneFlame(tree.root, this.ids, { minBytes: flameMinBytes(tree.root.bytes) });
    this.panel.title = vscode.l10n.t('Memory Flame Graph: {0}', c.label);
    if (
      this.post({
        type: 'init',
        session: ++this.session,
        title: c.label,
        instantLabel: c.instantLabel,
        path: c.path,
        device: c.device,
        root,
      })
    )
      this.sent = { of: c, index: c.instant.index };
    this.log.info(
      `flame graph: ${this.ids.nodes.size} frames of ${tree.root.blocks} live blocks ${c.instantLabel}, tree and pruning in ${(performance.now() - t0).toFixed(0)} ms`,
    );
  }

  private viewChanged(): void {
    const c = this.view.current;
    // Edits and toggles fire too: only a new snapshot, device or instant changes the tree. A hidden
    // page gets it when shown again (it asks: `ready`).
    if (!this.panel?.visible || (c && this.sent?.of === c && this.sent.index === c.instant.index)) return;
    this.sync();
  }

  dispose(): void {
    for (const s of [...this.subs.splice(0), ...this.panelSubs.splice(0)]) s.dispose();
    this.panel?.dispose();
  }
}
