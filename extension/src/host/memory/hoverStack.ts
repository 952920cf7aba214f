import * as vscode from 'vscode';
import type { FoldedStack } from '../../core/source/stackFolding';
import { markdownText } from '../../core/text';
import type { WorkspaceMapping } from './mapping';

/**
 * The hover's stack of the largest block, as markdown, from core's folded stack (which frames are
 * listed and which counted is decided there). Frame names are data: markdownText() makes them
 * text. Links go only to workspace files the path mapping found.
 */
export async function stackMarkdown(st: FoldedStack, library: boolean, mapping: WorkspaceMapping): Promise<string> {
  const local = await mapping.resolve(
    st.frames.map((f) => f.file),
    false,
  );
  // With library frames listed, only C++ frames are collapsed.
  const lib = (n: number) =>
    library
      ? n > 1
        ? vscode.l10n.t('{0} native frames', n)
        : vscode.l10n.t('{0} native frame', n)
      : n > 1
        ? vscode.l10n.t('{0} library frames', n)
        : vscode.l10n.t('{0} library frame', n);
  const items = st.frames.map((f) => {
    const where = local.get(f.file);
    const label = markdownText(`${f.place}:${f.line} ${f.name}`);
    const notes = [
      ...(f.user ? [] : [vscode.l10n.t('library')]),
      ...(where || !f.user ? [] : [vscode.l10n.t('not in this workspace')]),
      ...(f.via ? [vscode.l10n.t('via {0}', lib(f.via))] : []),
    ];
    // `where` is a workspace file (the mapping only answers with those); <…> keeps its URI whole.
    const link = where
      ? `[${label}](<${vscode.Uri.file(where)
          .with({ fragment: `L${f.line}` })
          .toString()}>)`
      : label;
    return `${link}${notes.length ? ` *(${notes.join(', ')})*` : ''}`;
  });
  if (st.trailing) items.push(`*… ${lib(st.trailing)}*`);
  const head = vscode.l10n.t('stack of the largest, innermost first:');
  if (st.compact) {
    if (st.more) items.push(`*${st.more > 1 ? vscode.l10n.t('+{0} more frames', st.more) : vscode.l10n.t('+{0} more frame', st.more)}*`);
    return `${head} ${items.join(' · ')}\n\n`;
  }
  if (st.more)
    items.push(
      `*${st.more > 1 ? vscode.l10n.t('+{0} more frames (the timeline shows the whole stack of a pinned block)', st.more) : vscode.l10n.t('+{0} more frame (the timeline shows the whole stack of a pinned block)', st.more)}*`,
    );
  return `${head}\n\n${items.map((i) => `- ${i}\n`).join('')}\n`;
}
