import * as vscode from 'vscode';
import { formatBytes } from '../../shared/format';
import { mainKind } from '../../core/kinds/kindLabels';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

/** Lenses on the top lines, and on the backward() call holding the backward pass's memory. */
export class MemoryLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
  ) {
    this.sub = view.onDidChange(() => this.changed.fire());
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const c = this.view.current;
    if (!c || !this.view.enabled || c.baseline) return [];
    const out: vscode.CodeLens[] = [];
    for (const l of this.view.linesFor(doc)) {
      if (!l.lens) continue;
      const range = new vscode.Range(l.currentLine! - 1, 0, l.currentLine! - 1, 0);
      const main = mainKind(l.kinds);
      const kind = main ? `${main.kind}${main.mixed ? '+' : ''}` : '';
      out.push(
        new vscode.CodeLens(range, {
          title: vscode.l10n.t(
            '{0} live {1} · {2} tensors{3} · show in summary',
            formatBytes(l.selfBytes),
            c.instantLabel,
            l.blocks,
            kind ? ` · ${kind}` : '',
          ),
          command: 'headroom.showSummary',
        }),
      );
    }
    const bw = c.attribution.buckets.find((b) => b.kind === 'backward');
    if (bw?.sites?.length) {
      const local = await this.mapping.resolve(
        bw.sites.map((s) => s.file),
        false,
      );
      for (const site of bw.sites) {
        if (local.get(site.file) !== doc.uri.fsPath) continue;
        const range = new vscode.Range(site.line - 1, 0, site.line - 1, 0);
        out.push(
          new vscode.CodeLens(range, {
            title: vscode.l10n.t('{0} held by backward {1} · show in summary', formatBytes(site.bytes), c.instantLabel),
            command: 'headroom.showSummary',
          }),
        );
      }
    }
    return out;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
