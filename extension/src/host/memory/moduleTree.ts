import * as vscode from 'vscode';
import { byModule } from '../../core/analysis/modules';
import type { ModuleStat } from '../../core/analysis/modules';
import { formatBytes } from '../../shared/format';
import type { WorkspaceMapping } from './mapping';
import { group, leaf } from './treeItems';
import type { Node } from './treeItems';
import type { MemoryView } from './view';

type Shown = NonNullable<MemoryView['current']>;

/**
 * "By module" in the Headroom view: the modules holding memory at the instant shown, nested as in
 * the model, each with its bytes (itself and below); one with a model line opens it where the
 * workspace has the file. Computed when first expanded.
 */
export function moduleGroup(c: Shown, mapping: WorkspaceMapping): Node {
  return group(vscode.l10n.t('By module'), async () => {
    const mods = byModule(c.snapshot, c.analysis, c.instant.index).modules.filter((m) => m.inclusiveBytes > 0);
    const local = await mapping.resolve([...new Set(mods.flatMap((m) => (m.where ? [m.where.file] : [])))], false);
    const children = new Map<string, ModuleStat[]>();
    for (const m of mods) {
      const parent = m.path.includes('.') ? m.path.slice(0, m.path.lastIndexOf('.')) : '';
      children.set(parent, [...(children.get(parent) ?? []), m]);
    }
    const node = (m: ModuleStat): Node => {
      const name = m.path.slice(m.path.lastIndexOf('.') + 1);
      const file = m.where ? local.get(m.where.file) : undefined;
      const open = file
        ? {
            title: vscode.l10n.t('Open'),
            command: 'vscode.open',
            arguments: [vscode.Uri.file(file), { selection: new vscode.Range(m.where!.line - 1, 0, m.where!.line - 1, 0) }],
          }
        : undefined;
      const where = m.where ? `${m.where.file.split('/').pop()}:${m.where.line}` : undefined;
      const tip =
        vscode.l10n.t('{0}: {1} with the modules under it, {2} itself', m.path, formatBytes(m.inclusiveBytes), formatBytes(m.selfBytes)) +
        (m.where ? ` · ${m.where.file}:${m.where.line} (${m.where.name})` : '');
      const kids = children.get(m.path);
      if (!kids) return leaf(`${formatBytes(m.inclusiveBytes)} ${name}`, where, open, tip);
      const g = group(`${formatBytes(m.inclusiveBytes)} ${name}`, () => kids.map(node), false, where);
      g.tooltip = tip;
      return g;
    };
    return (children.get('') ?? []).map(node);
  });
}
