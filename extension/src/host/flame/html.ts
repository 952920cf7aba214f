import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/**
 * The flame graph page: the built script and styles only, under a CSP that allows nothing else
 * (no network, no inline code without the nonce).
 */
export function flameHtml(web: vscode.Webview, dist: vscode.Uri): string {
  const n = randomBytes(18).toString('base64url');
  const uri = (f: string) => web.asWebviewUri(dist.with({ path: `${dist.path}/${f}` }));
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${web.cspSource}; script-src 'nonce-${n}'; font-src ${web.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Memory Flame Graph</title>
<link rel="stylesheet" href="${uri('flame.css')}"></head>
<body><script nonce="${n}" src="${uri('flame.js')}"></script></body></html>`;
}
