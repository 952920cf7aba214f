import * as vscode from 'vscode';
import { formatBytes } from '../../core/format';
import { lineHistory, stackOf } from '../../core/source/lineFacts';
import { markdownText } from '../../core/text';
import { CommandId } from '../commandIds';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

/** The only command links a hover may hold: Headroom's own, without arguments. */
const ENABLED = [CommandId.ShowSummary, CommandId.ShowTimeline];

/**
 * The memory behind a decorated line: figures, largest tensors, the stack, the line's history.
 * Frame files and names, and the snapshot's label, are data: markdownText() makes them text, so
 * a crafted snapshot cannot add links, images, icons, HTML or emphasis. Links are built here: to
 * workspace files the path mapping found, and to the two commands in ENABLED.
 */
export class MemoryHover implements vscode.HoverProvider {
  constructor(
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
  ) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const v = this.view.linesFor(doc).find((l) => l.currentLine === pos.line + 1);
    const c = this.view.current;
    if (!v || !c) return undefined;
    const stat = this.view.lineStat(v);
    const md = new vscode.MarkdownString(undefined, false);
    md.supportHtml = false;
    md.isTrusted = { enabledCommands: ENABLED };
    md.appendMarkdown(`**Headroom** — ${markdownText(c.label)}, device ${c.device}, ${c.instantLabel}${v.stale ? ' *(stale: the file changed since the run)*' : ''}\n\n`);
    if (stat) {
      md.appendMarkdown(`self **${formatBytes(stat.selfBytes)}** in ${stat.selfBlocks} blocks · inclusive ${formatBytes(stat.inclusiveBytes)} (${stat.inclusiveBlocks} blocks)\n\n`);
      if (stat.largest.length) md.appendMarkdown(`largest tensors: ${stat.largest.map((b) => formatBytes(b.bytes)).join(', ')}\n\n`);
      const top = stat.largest[0];
      if (top) {
        const frames = stackOf(c.snapshot, c.analysis, top.element);
        const local = await this.mapping.resolve(
          frames.flatMap((f) => ('file' in f ? [f.file] : [])),
          false,
        );
        md.appendMarkdown('stack of the largest, innermost first:\n\n');
        for (const f of frames) {
          if (!('file' in f)) {
            md.appendMarkdown(`- *… ${f.collapsed} library frame${f.collapsed > 1 ? 's' : ''}*\n`);
            continue;
          }
          const where = local.get(f.file);
          const label = markdownText(`${f.file.split('/').pop()}:${f.line} ${f.name}`);
          // `where` is a workspace file (the mapping only answers with those); <…> keeps its URI whole.
          md.appendMarkdown(where ? `- [${label}](<${vscode.Uri.file(where).with({ fragment: `L${f.line}` }).toString()}>)\n` : `- ${label} *(not in this workspace)*\n`);
        }
        md.appendMarkdown('\n');
      }
      const h = lineHistory(c.snapshot, c.analysis, stat.file, stat.line);
      md.appendMarkdown(`over the whole trace this line allocated ${h.count} times, ${formatBytes(h.bytes)} in all\n\n`);
    } else md.appendMarkdown(`${markdownText(v.text)}\n\n`);
    md.appendMarkdown(`[Show the summary of this moment](command:${CommandId.ShowSummary}) · [Show the memory timeline](command:${CommandId.ShowTimeline})`);
    return new vscode.Hover(md);
  }
}
