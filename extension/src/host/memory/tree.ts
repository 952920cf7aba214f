import { join } from 'node:path';
import * as vscode from 'vscode';
import { BUCKET_LABELS } from '../../core/analysis/attribution';
import { reservedAt } from '../../core/analysis/replay';
import { formatBytes } from '../../shared/format';
import { runFolders } from '../../core/run/processes';
import { hasModuleScopes } from '../../core/analysis/modules';
import { moduleGroup } from './moduleTree';
import { group, leaf } from './treeItems';
import type { Node } from './treeItems';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

/** The Headroom view: the snapshot shown (peak, reserved, buckets, top lines, unmapped frames) and the runs. */
export class SummaryTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
    private readonly runsDir: () => string | undefined,
  ) {
    this.sub = view.onDidChange(() => this.changed.fire());
  }

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(n: Node): vscode.TreeItem {
    return n;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n) return n.children ? await n.children() : [];
    const out: Node[] = [];
    const c = this.view.current;
    if (!c)
      out.push(
        leaf(vscode.l10n.t('Open a memory snapshot…'), undefined, { title: vscode.l10n.t('Open'), command: 'headroom.openSnapshot' }),
      );
    else out.push(group(c.label, () => this.sourceChildren(), true, vscode.l10n.t('device {0} · {1}', c.device, c.instantLabel)));
    const runs = this.runsDir();
    if (runs) {
      const dirs = runFolders(runs);
      if (dirs.length)
        out.push(
          group(
            vscode.l10n.t('Runs'),
            () =>
              dirs.map((d) =>
                leaf(d, undefined, {
                  title: vscode.l10n.t('Open Run'),
                  command: 'headroom.openRun',
                  arguments: [vscode.Uri.file(join(runs, d))],
                }),
              ),
            false,
            `${dirs.length}`,
          ),
        );
    }
    return out;
  }

  private async sourceChildren(): Promise<Node[]> {
    const c = this.view.current!;
    const r = c.analysis.replay;
    // Labels stay short (a side bar is ~300 px wide): the figure in the label, the rest in the
    // description, and everything in the tooltip.
    const out: Node[] = [
      leaf(
        vscode.l10n.t('Peak {0}', formatBytes(r.peak.requestedBytes)),
        `#${r.peak.index}`,
        { title: vscode.l10n.t('Show'), command: 'headroom.showMemoryAt', arguments: ['peak'] },
        vscode.l10n.t('Peak: {0} requested, at event #{1}', formatBytes(r.peak.requestedBytes), r.peak.index),
      ),
      leaf(
        vscode.l10n.t('Shown {0}', formatBytes(c.instant.requestedBytes)),
        c.instantLabel,
        undefined,
        vscode.l10n.t('Now showing {0} requested, {1}', formatBytes(c.instant.requestedBytes), c.instantLabel),
      ),
      leaf(
        vscode.l10n.t('Reserved {0}', formatBytes(reservedAt(r, c.instant.index))),
        vscode.l10n.t('peak {0}', formatBytes(r.reservedPeak.bytes)),
      ),
      leaf(
        vscode.l10n.t('Timeline'),
        vscode.l10n.t('{0} events', r.n.toLocaleString('en-US')),
        { title: vscode.l10n.t('Show Memory Timeline'), command: 'headroom.showTimeline' },
        vscode.l10n.t('Show the memory timeline'),
      ),
    ];
    const local = await this.mapping.resolve(
      c.attribution.lines.slice(0, 15).map((l) => l.file),
      false,
    );
    out.push(
      group(
        vscode.l10n.t('Top lines'),
        () =>
          c.attribution.lines
            .filter((l) => l.selfBytes > 0)
            .slice(0, 15)
            .map((l) => {
              const f = local.get(l.file);
              const cmd = f
                ? {
                    title: vscode.l10n.t('Open'),
                    command: 'vscode.open',
                    arguments: [vscode.Uri.file(f), { selection: new vscode.Range(l.line - 1, 0, l.line - 1, 0) }],
                  }
                : undefined;
              return leaf(
                `${formatBytes(l.selfBytes)} ${l.file.split('/').pop()}:${l.line}`,
                l.name,
                cmd,
                `${vscode.l10n.t('{0} at {1}:{2} ({3})', formatBytes(l.selfBytes), l.file, l.line, l.name)}${f ? '' : `, ${vscode.l10n.t('not in this workspace')}`}`,
              );
            }),
        true,
      ),
    );
    if (hasModuleScopes(c.snapshot)) out.push(moduleGroup(c, this.mapping));
    if (c.attribution.buckets.length)
      out.push(
        group(vscode.l10n.t('Without a user frame'), () =>
          c.attribution.buckets.map((b) =>
            leaf(
              formatBytes(b.bytes),
              BUCKET_LABELS[b.kind],
              undefined,
              vscode.l10n.t('{0} in {1} blocks: {2}', formatBytes(b.bytes), b.blocks, BUCKET_LABELS[b.kind]),
            ),
          ),
        ),
      );
    if (this.view.unmapped.length) {
      out.push(
        group(
          vscode.l10n.t('Frames not in this workspace'),
          () =>
            this.view.unmapped.map((u) =>
              leaf(
                u.file.split('/').pop() ?? u.file,
                vscode.l10n.t('{0} · {1} lines', formatBytes(u.selfBytes), u.lines),
                undefined,
                vscode.l10n.t('{0}: map it with headroom.pathMappings', u.file),
              ),
            ),
          false,
          `${this.view.unmapped.length}`,
        ),
      );
    }
    return out;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
