import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/**
 * The timeline page: the built script and styles only, under a CSP that allows nothing else
 * (no network, no inline code without the nonce, images only from the page itself).
 */
export function timelineHtml(web: vscode.Webview, dist: vscode.Uri): string {
  const n = randomBytes(18).toString('base64url');
  const uri = (f: string) => web.asWebviewUri(dist.with({ path: `${dist.path}/${f}` }));
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${web.cspSource}; script-src 'nonce-${n}'; img-src ${web.cspSource} blob: data:; font-src ${web.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Memory Timeline</title>
<link rel="stylesheet" href="${uri('timeline.css')}"></head>
<body><script nonce="${n}" src="${uri('timeline.js')}"></script></body></html>`;
}
