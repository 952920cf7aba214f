import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from '../core/protocol';
import { isFromWebview } from '../core/protocol';

/** Theme-aware styles: only VS Code's CSS variables, so every theme restyles the panel. */
const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px; }
h1 { font-size: 1.4em; font-weight: 600; margin: 16px 0 8px; }
dl { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; margin: 8px 0 16px; }
dt { color: var(--vscode-descriptionForeground); }
dd { margin: 0; font-variant-numeric: tabular-nums; font-weight: 600; white-space: nowrap; }
table { border-collapse: collapse; min-width: 60%; }
caption { text-align: left; font-weight: 600; padding: 8px 0; }
th { white-space: nowrap; text-align: left; color: var(--vscode-descriptionForeground); font-weight: normal; padding: 2px 12px 2px 0; }
td { padding: 2px 12px 2px 0; font-variant-numeric: tabular-nums; }
/* Figures never wrap ("133 / MiB"): their columns take their width; only the line column wraps. */
td.bytes { text-align: right; white-space: nowrap; }
td:last-child { overflow-wrap: anywhere; }
th.bytes { text-align: right; }
tr.bucket td { color: var(--vscode-descriptionForeground); font-style: italic; }
tr.current td { font-weight: 600; }
h2 { font-size: 1.15em; font-weight: 600; margin: 20px 0 6px; }
a { color: var(--vscode-textLink-foreground); text-decoration: none; }
a:hover, a:focus { text-decoration: underline; }
.note { color: var(--vscode-descriptionForeground); font-size: 0.9em; margin-top: 12px; }
.segmap h3 { font-size: 1em; font-weight: 600; margin: 12px 0 4px; }
.segrow { display: flex; align-items: center; gap: 8px; margin: 2px 0; }
.seg { display: flex; height: 14px; flex: none; border: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); }
.run.allocated { background: var(--vscode-charts-blue); }
.run.pending { background: var(--vscode-charts-yellow); }
.run.free { background: transparent; }
.run.free.fits { background: var(--vscode-charts-green); }
.run + .run { border-left: 1px solid var(--vscode-editor-background); }
.segkey { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
.segkey > span { display: inline-flex; gap: 6px; align-items: center; white-space: nowrap; }
.segkey .swatch { width: 10px; height: 10px; border: 1px solid var(--vscode-panel-border, var(--vscode-foreground)); }
tr.breakdown > td { padding: 0 0 6px 1.5em; }
.breakdown-head { display: flex; align-items: center; gap: 12px; color: var(--vscode-descriptionForeground); margin: 2px 0; }
.breakdown-head button { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: none; padding: 1px 8px; cursor: pointer; }
.breakdown-head button:hover { background: var(--vscode-button-secondaryHoverBackground); }
table.breakdown-rows { min-width: 0; }
table.breakdown-rows td { padding: 0 12px 0 0; vertical-align: top; }
table.breakdown-rows td.frame a.where { margin-left: 1em; white-space: nowrap; }
.whatif form { display: flex; gap: 8px; margin: 8px 0; flex-wrap: wrap; }
.whatif input { font: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 2px 4px; }
.whatif td.setting { overflow-wrap: anywhere; }
.whatif td.setting button { display: block; margin: 2px 0 4px; font-size: 0.9em; }
.whatif button, .scale button { font: inherit; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 2px 10px; cursor: pointer; }
.scale-row { display: flex; gap: 8px; align-items: center; }
.scale-label { font-variant-numeric: tabular-nums; white-space: nowrap; }
.scale-bar { position: relative; height: 14px; max-width: 40em; margin: 6px 0 10px; background: var(--vscode-editorWidget-background, transparent); border: 1px solid var(--vscode-panel-border, currentColor); }
.scale-bar .fill { height: 100%; background: var(--vscode-charts-blue, #3794ff); }
.scale-bar .fill.over { background: var(--vscode-charts-red, #f14c4c); }
.scale-bar .limit, .scale-bar .recorded { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--vscode-charts-red, #f14c4c); }
.scale-bar .recorded { background: var(--vscode-descriptionForeground, gray); }
.seglabel { color: var(--vscode-descriptionForeground); font-size: 0.9em; font-variant-numeric: tabular-nums; white-space: nowrap; }
`;

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}

/** What a summary page shows and does: built by openSnapshot.ts's summaryFor. */
export interface SummarySource {
  /** The latest summary (a distributed run's ranks section fills in later). */
  message: () => ToWebview;
  onMessage: (m: FromWebview) => void;
  later?: Promise<ToWebview> | undefined;
  /** Sections computed after the page opened, posted as they come (the what-if predictions). */
  feeds?: { latest(): ToWebview | undefined; subscribe(post: (m: ToWebview) => void): () => void }[];
}

/**
 * Puts the summary page into a webview (a panel's, or a custom editor's). The page keeps no data of
 * its own: on `ready` (first load, or after being hidden and restored) the host sends it again.
 */
export function attachSummary(web: vscode.Webview, extensionUri: vscode.Uri, src: SummarySource): vscode.Disposable {
  const { message, onMessage, later, feeds = [] } = src;
  let live = true;
  // Updates computed after the page opened (a distributed run's other ranks, the what-if
  // predictions): posted unless the page is gone.
  void later?.then((m) => live && web.postMessage(m)).catch(() => undefined);
  const unsubscribe = feeds.map((f) => f.subscribe((m) => void (live && web.postMessage(m))));
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  web.options = { enableScripts: true, localResourceRoots: [dist] };
  const script = web.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
  const n = nonce();
  web.html = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${web.cspSource} 'nonce-${n}'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Headroom</title>
<style nonce="${n}">${STYLE}</style></head>
<body><main id="root" aria-live="polite">${vscode.l10n.t('Loading…')}</main><script nonce="${n}" src="${script}"></script></body></html>`;
  const sub = web.onDidReceiveMessage((m: unknown) => {
    if (!isFromWebview(m)) return;
    if (m.type === 'ready') {
      void web.postMessage(message());
      for (const f of feeds) {
        const w = f.latest();
        if (w) void web.postMessage(w);
      }
    } else onMessage(m);
  });
  return new vscode.Disposable(() => {
    live = false;
    for (const u of unsubscribe) u();
    sub.dispose();
  });
}

/** A snapshot summary in a webview panel, beside the code it annotates (which keeps the focus). */
export class SummaryPanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly subs: vscode.Disposable[] = [];

  constructor(extensionUri: vscode.Uri, src: SummarySource, onDispose?: () => void) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    const first = src.message();
    this.panel = vscode.window.createWebviewPanel(
      'headroom.summary',
      first.type === 'summary' ? vscode.l10n.t('Headroom: {0}', first.title) : vscode.l10n.t('Headroom: error'),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        localResourceRoots: [dist],
      },
    );
    this.subs.push(
      attachSummary(this.panel.webview, extensionUri, src),
      this.panel.onDidDispose(() => this.dispose()),
      { dispose: () => onDispose?.() },
    );
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    this.panel.dispose();
  }
}
