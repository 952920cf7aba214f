import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from '../core/protocol';
import { isFromWebview } from '../core/protocol';

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}

/**
 * A snapshot summary in a webview panel. The page keeps no data of its own: on `ready` (first
 * load, or after being hidden and restored) the host sends the summary again.
 */
export class SummaryPanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    extensionUri: vscode.Uri,
    private readonly message: ToWebview,
    private readonly onMessage: (m: FromWebview) => void,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel('headroom.summary', `Headroom: ${message.type === 'summary' ? message.title : 'error'}`, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist],
    });
    const web = this.panel.webview;
    const script = web.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const n = nonce();
    web.html = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${web.cspSource} 'nonce-${n}'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Headroom</title></head>
<body><main id="root" aria-live="polite">Loading…</main><script nonce="${n}" src="${script}"></script></body></html>`;
    this.subs.push(
      web.onDidReceiveMessage((m: unknown) => {
        if (!isFromWebview(m)) return;
        if (m.type === 'ready') void web.postMessage(this.message);
        else this.onMessage(m);
      }),
      this.panel.onDidDispose(() => this.dispose()),
    );
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    this.panel.dispose();
  }
}
