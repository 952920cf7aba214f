import * as vscode from 'vscode';
import { plain } from '../../shared/text';
import { shortText as words } from '../../core/source/lineWords';
import type { MemoryView, ViewLine } from './view';

const HEAT = [0, 1, 2, 3, 4];

/**
 * A fixed set of decoration types (one per heat level, plus stale), created once; each editor gets
 * the after-line texts as per-range render options. Theme colours (package.json contributes.colors)
 * let every theme restyle them.
 */
export class MemoryDecorations implements vscode.Disposable {
  private readonly types = HEAT.map((h) =>
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      overviewRulerColor: new vscode.ThemeColor(`headroom.heat${h}`),
      overviewRulerLane: vscode.OverviewRulerLane.Right,
      borderWidth: '0 0 0 3px',
      borderStyle: 'solid',
      borderColor: new vscode.ThemeColor(`headroom.heat${h}`),
      after: { color: new vscode.ThemeColor('headroom.annotationForeground'), margin: '0 0 0 1em', fontStyle: 'normal' },
    }),
  );
  private readonly stale = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    after: { color: new vscode.ThemeColor('headroom.staleAnnotationForeground'), margin: '0 0 0 1em', fontStyle: 'italic' },
  });
  private readonly subs: vscode.Disposable[];

  constructor(private readonly view: MemoryView) {
    this.subs = [view.onDidChange(() => this.renderAll()), vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll())];
    this.renderAll();
  }

  renderAll(): void {
    for (const ed of vscode.window.visibleTextEditors) this.render(ed);
  }

  private render(ed: vscode.TextEditor): void {
    const lines = this.view.linesFor(ed.document);
    const byHeat: vscode.DecorationOptions[][] = HEAT.map(() => []);
    const stale: vscode.DecorationOptions[] = [];
    for (const l of lines) {
      const line = l.currentLine! - 1;
      if (line < 0 || line >= ed.document.lineCount) continue;
      const opt = this.option(l, line);
      (l.stale ? stale : byHeat[l.heat]!).push(opt);
    }
    this.types.forEach((t, h) => ed.setDecorations(t, byHeat[h]!));
    ed.setDecorations(this.stale, stale);
  }

  private option(l: ViewLine, line: number): vscode.DecorationOptions {
    // The text can quote a baseline's label (a file name): shown plain.
    return {
      range: new vscode.Range(line, 0, line, 0),
      renderOptions: { after: { contentText: plain(words(l, this.view.current?.instantLabel ?? '', vscode.l10n.t)) } },
    };
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    for (const t of this.types) t.dispose();
    this.stale.dispose();
  }
}
