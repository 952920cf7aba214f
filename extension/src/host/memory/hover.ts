import * as vscode from 'vscode';
import { formatBytes } from '../../shared/format';
import { kindEntries, kindsShort } from '../../core/kinds/kindLabels';
import { lineHistory, stackOf } from '../../core/source/lineFacts';
import { foldStack } from '../../core/source/stackFolding';
import { markdownText } from '../../core/text';
import { CommandId } from '../commandIds';
import { HoverBreakdown, OPEN_BREAKDOWN_FRAME } from './hoverBreakdown';
import { stackMarkdown } from './hoverStack';
import { lineText as words } from '../../core/source/lineWords';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

/** The only command links a hover may hold: Headroom's own; none takes an argument but OPEN_BREAKDOWN_FRAME (a row's index, checked). */
const ENABLED = [CommandId.ShowSummary, CommandId.ShowTimeline, CommandId.ToggleHoverLibraryFrames, OPEN_BREAKDOWN_FRAME];

/** "2.00 MiB ×5, 1.00 MiB": equal neighbours counted, so the line stays one line. */
function runs(sizes: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < sizes.length; ) {
    let j = i;
    while (j < sizes.length && sizes[j] === sizes[i]) j++;
    out.push(j - i > 1 ? `${sizes[i]} ×${j - i}` : sizes[i]!);
    i = j;
  }
  return out.join(', ');
}

/**
 * The memory behind a decorated line: figures, largest tensors, the stack, the line's history.
 * Frame files and names, and the snapshot's label, are data: markdownText() makes them text, so
 * a crafted snapshot cannot add links, images, icons, HTML or emphasis. Links are built here (and
 * in hoverBreakdown.ts): to workspace files the path mapping found, and to the commands in ENABLED.
 */
export class MemoryHover implements vscode.HoverProvider {
  /** Whether hovers list the library frames between user frames (the hover's own link toggles it). */
  private library = false;
  /** The document of the last hover: a link click takes the focus, and showHover needs it back. */
  private lastUri: string | undefined;
  private readonly breakdown: HoverBreakdown;

  constructor(
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
  ) {
    this.breakdown = new HoverBreakdown(mapping, () => view.treeNow());
  }

  /** {@link OPEN_BREAKDOWN_FRAME}: opens the library line of a row the last hover's breakdown linked. */
  openBreakdownFrame(index: unknown): Promise<void> {
    return this.breakdown.open(index);
  }

  /** Shows or hides library frames, then shows the hover again where it was. */
  async toggleLibrary(): Promise<void> {
    this.library = !this.library;
    const ed = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.lastUri);
    if (!ed) return;
    await vscode.window.showTextDocument(ed.document, { viewColumn: ed.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('editor.action.showHover');
  }

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const v = this.view.linesFor(doc).find((l) => l.currentLine === pos.line + 1);
    const c = this.view.current;
    if (!v || !c) return undefined;
    this.lastUri = doc.uri.toString();
    const stat = this.view.lineStat(v);
    const md = new vscode.MarkdownString(undefined, false);
    md.supportHtml = false;
    md.isTrusted = { enabledCommands: ENABLED };
    md.appendMarkdown(
      vscode.l10n.t(
        '**Headroom** — {0}, device {1}, {2}{3}',
        markdownText(c.label),
        c.device,
        c.instantLabel,
        v.stale ? ` ${vscode.l10n.t('*(stale: the file changed since the run)*')}` : '',
      ),
    );
    // Lines joined by hard breaks ("  \n"), not paragraphs: the hover must not cover the code it explains.
    // The library frames' link goes on the last line with the others, for the same reason.
    let toggle = false;
    if (stat) {
      // The kinds on the same line: the hover must stay short beside the code.
      const kinds = kindEntries(stat.kindBytes);
      md.appendMarkdown(
        `  \n${vscode.l10n.t('self **{0}** in {1} blocks · inclusive {2} ({3} blocks)', formatBytes(stat.selfBytes), stat.selfBlocks, formatBytes(stat.inclusiveBytes), stat.inclusiveBlocks)}${kinds.length ? ` · ${markdownText(kindsShort(kinds, formatBytes))}` : ''}`,
      );
      if (stat.largest.length)
        md.appendMarkdown(`  \n${vscode.l10n.t('largest tensors: {0}', runs(stat.largest.map((b) => formatBytes(b.bytes))))}`);
      // A line holding a large share (the model call): the model code beneath it, as `headroom analyze`
      // shows it. Its stack then takes one line: the breakdown already says what is beneath the line.
      const beneath = await this.breakdown.section(stat.file, stat.line, stat.selfBytes, c.instant.requestedBytes);
      for (const l of beneath) md.appendMarkdown(`  \n${l}`);
      md.appendMarkdown('\n\n');
      const top = stat.largest[0];
      if (top) {
        // Which frames are listed and which only counted: core/source/stackFolding.ts.
        const st = foldStack(stackOf(c.snapshot, c.analysis, top.element, this.library), {
          library: this.library,
          breakdown: beneath.length > 0,
        });
        md.appendMarkdown(await stackMarkdown(st, this.library, this.mapping));
        toggle = st.toggle;
      }
      const h = lineHistory(c.snapshot, c.analysis, stat.file, stat.line);
      md.appendMarkdown(
        `${vscode.l10n.t('over the whole trace this line allocated {0} times, {1} in all', h.count, formatBytes(h.bytes))} · `,
      );
    } else md.appendMarkdown(`\n\n${markdownText(words(v, c.instantLabel, vscode.l10n.t))}\n\n`);
    md.appendMarkdown(
      `[${vscode.l10n.t('Summary')}](command:${CommandId.ShowSummary}) · [${vscode.l10n.t('Timeline')}](command:${CommandId.ShowTimeline})`,
    );
    if (toggle)
      md.appendMarkdown(
        ` · [${this.library ? vscode.l10n.t('Hide library frames') : vscode.l10n.t('Show library frames')}](command:${CommandId.ToggleHoverLibraryFrames})`,
      );
    return new vscode.Hover(md);
  }
}
