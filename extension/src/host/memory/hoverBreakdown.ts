import * as vscode from 'vscode';
import type { CallTree } from '../../core/analysis/callNode';
import { compactBreakdown } from '../../core/analysis/compactBreakdown';
import { libraryFileHere } from '../../core/source/libraryFile';
import { markdownText } from '../../core/text';
import { formatBytes } from '../../shared/format';
import { CommandId } from '../commandIds';
import type { WorkspaceMapping } from './mapping';
import { openLibraryLine } from './openFrame';

/**
 * The command a breakdown row's link runs for a library file outside the workspace. Its only
 * argument is a row's index into the frames the last hover linked (checked, and refused once the
 * view shows another instant): no path from the snapshot travels in a link.
 */
export const OPEN_BREAKDOWN_FRAME = CommandId.OpenBreakdownFrame;

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The hover's section on the model code beneath a line that holds a large share of the memory: the
 * rows `headroom analyze` prints under it, each row's frame a link when it can be opened safely (a
 * workspace file the mapping found, or an installed package's file here, opened read-only).
 */
export class HoverBreakdown {
  /** What the last hover linked through OPEN_BREAKDOWN_FRAME, and the tree it was read from. */
  private linked: { file: string; line: number }[] = [];
  private linkedTree: CallTree | undefined;

  constructor(
    private readonly mapping: WorkspaceMapping,
    private readonly treeNow: () => CallTree | undefined,
  ) {}

  /**
   * Markdown lines for the line (the hover joins them with hard breaks), none when it gets no
   * breakdown. A row names its frame's file by its name (`container.py:253`): the hover is narrow.
   */
  async section(file: string, line: number, selfBytes: number, total: number): Promise<string[]> {
    const tree = this.treeNow();
    const b = tree && compactBreakdown(tree, file, line, selfBytes, total);
    if (!b) return [];
    const { rows, folded } = b;
    const files = [...new Set(rows.map((r) => r.file).filter(Boolean))];
    const local = await this.mapping.resolve(files, false, false);
    this.linked = [];
    this.linkedTree = tree;
    const out = [
      folded.length
        ? vscode.l10n.t('in library code beneath it (folded: {0}):', markdownText(folded.join(', ')))
        : vscode.l10n.t('in library code beneath it:'),
    ];
    for (const r of rows) {
      const { where, file: at, line: n } = r;
      let shown = where ? markdownText(where) : '';
      const mapped = at ? local.get(at) : undefined;
      // `mapped` is a workspace file (the mapping only answers with those); <…> keeps its URI whole.
      if (where && mapped)
        shown = `[${shown}](<${vscode.Uri.file(mapped)
          .with({ fragment: `L${n}` })
          .toString()}>)`;
      else if (where && libraryFileHere(at)) {
        this.linked.push({ file: at, line: n });
        const args = encodeURIComponent(JSON.stringify([this.linked.length - 1]));
        shown = `[${shown}](command:${OPEN_BREAKDOWN_FRAME}?${args} "${vscode.l10n.t('Open the library line (read-only)')}")`;
      }
      // Indented by depth with no-break spaces: markdown drops leading spaces.
      out.push(
        `${'\u00a0\u00a0\u00a0'.repeat(r.depth)}${formatBytes(r.bytes)} ${pct(r.share)} ${r.names.map(markdownText).join(' › ')}${shown ? ` · ${shown}` : ''}`,
      );
    }
    if (b.more) out.push(`*${vscode.l10n.t('+{0} more rows on the summary page', b.more)}*`);
    return out;
  }

  /** The command behind a row's link: opens row `index`'s library line, if the hover it came from is still current. */
  async open(index: unknown): Promise<void> {
    const f = typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? this.linked[index] : undefined;
    if (!f || this.treeNow() !== this.linkedTree) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Headroom: the memory shown changed since this hover; hover the line again.'),
      );
      return;
    }
    await openLibraryLine(this.mapping, f.file, f.line);
  }
}
