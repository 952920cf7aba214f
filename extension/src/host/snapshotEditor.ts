import { open } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { OpenSnapshotDeps } from './openSnapshot';
import { showSnapshot, summaryFor } from './openSnapshot';
import { attachSummary } from './summaryPanel';

/** Pickle protocols 2–5 start with PROTO; anything else (or an unreadable file) is not a snapshot. */
async function looksLikePickle(path: string): Promise<boolean> {
  try {
    const fh = await open(path, 'r');
    try {
      const head = new Uint8Array(2);
      await fh.read(head, 0, 2, 0);
      return head[0] === 0x80 && head[1]! >= 2 && head[1]! <= 5;
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
}

/**
 * A read-only editor for `*.pickle` snapshots: their summary, with the code annotated. Any other
 * pickle goes back to the default editor without complaint.
 */
export class SnapshotEditor implements vscode.CustomReadonlyEditorProvider {
  static readonly viewType = 'headroom.snapshot';

  constructor(private readonly deps: OpenSnapshotDeps) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(doc: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const fallback = async () => {
      panel.dispose();
      await vscode.commands.executeCommand('vscode.openWith', doc.uri, 'default');
    };
    if (!(await looksLikePickle(doc.uri.fsPath))) return fallback();
    // Another kind of pickle is not an error here: it simply opens as it would without Headroom.
    const ok = await showSnapshot(this.deps, doc.uri, { quiet: ['not-pickle', 'wrong-shape', 'unsupported'] });
    const c = this.deps.view.current;
    if (!ok || !c || c.path !== doc.uri.fsPath) return fallback();
    const src = summaryFor(c, this.deps.view.mapping, this.deps.log, this.deps.view);
    const sub = attachSummary(panel.webview, this.deps.extensionUri, src);
    panel.onDidDispose(() => {
      sub.dispose();
      src.dispose();
    });
  }
}
