import * as vscode from 'vscode';
import { formatBytes } from '../../shared/format';
import { mainKind } from '../../core/kinds/kindLabels';
import { plain } from '../../shared/text';
import type { MemoryView, ViewLine } from './view';

const HEAT = [0, 1, 2, 3, 4];

/**
 * The after-line text, short enough to fit beside code in an editor half the screen wide: the
 * figure, the instant only when it is not the peak (the lens, hover and tree say so), "stale"
 * without the reason (the hover gives it). Compare mode's signed texts are kept as they are.
 */
export function shortText(l: ViewLine, instantLabel: string): string {
  const self = l.text.startsWith('▲');
  if (!self && !l.text.startsWith('⊂')) return l.stale ? `${l.text} · ${vscode.l10n.t('stale')}` : l.text;
  const figure = self
    ? `▲${formatBytes(l.selfBytes)}${l.text.includes('(⊂') ? ` ⊂${formatBytes(l.inclusiveBytes)}` : ''}`
    : `⊂${formatBytes(l.inclusiveBytes)}`;
  // A line whose memory is mostly leaked says so beside the figure (the lens and hover name every
  // kind; a longer word would not fit beside a long line in half an editor).
  const kind = self && mainKind(l.kinds)?.kind === 'leaked' ? ` · ${vscode.l10n.t('leaked')}` : '';
  return `${figure}${kind}${instantLabel && instantLabel !== vscode.l10n.t('at peak') ? ` ${instantLabel}` : ''}${l.stale ? ` · ${vscode.l10n.t('stale')}` : ''}`;
}

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
      renderOptions: { after: { contentText: plain(shortText(l, this.view.current?.instantLabel ?? '')) } },
    };
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    for (const t of this.types) t.dispose();
    this.stale.dispose();
  }
}
