import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { BUCKET_LABELS } from '../../core/analysis/attribution';
import { reservedAt } from '../../core/analysis/replay';
import { formatBytes } from '../../core/format';
import { plain } from '../../core/text';
import { isSideProcessFolder } from '../../core/run/processes';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

type Node = vscode.TreeItem & { children?: () => Promise<Node[]> | Node[] };

// Labels quote frame paths, function names and folder names: plain text, one line each.
function leaf(label: string, description?: string, command?: vscode.Command, tooltip?: string): Node {
  const n: Node = new vscode.TreeItem(plain(label), vscode.TreeItemCollapsibleState.None);
  if (description) n.description = plain(description);
  if (command) n.command = command;
  if (tooltip) n.tooltip = plain(tooltip);
  return n;
}

function group(label: string, children: () => Promise<Node[]> | Node[], expanded = false, description?: string): Node {
  const n: Node = new vscode.TreeItem(plain(label), expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  n.children = children;
  if (description) n.description = plain(description);
  return n;
}

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
    if (!c) out.push(leaf('Open a memory snapshot…', undefined, { title: 'Open', command: 'headroom.openSnapshot' }));
    else out.push(group(c.label, () => this.sourceChildren(), true, `device ${c.device} · ${c.instantLabel}`));
    const runs = this.runsDir();
    if (runs && existsSync(runs)) {
      const dirs = readdirSync(runs)
        .filter((d) => !isSideProcessFolder(d) && statSync(join(runs, d)).isDirectory())
        .sort()
        .reverse();
      if (dirs.length) out.push(group('Runs', () => dirs.map((d) => leaf(d, undefined, { title: 'Open Run', command: 'headroom.openRun', arguments: [vscode.Uri.file(join(runs, d))] })), false, `${dirs.length}`));
    }
    return out;
  }

  private async sourceChildren(): Promise<Node[]> {
    const c = this.view.current!;
    const r = c.analysis.replay;
    // Labels stay short (a side bar is ~300 px wide): the figure in the label, the rest in the
    // description, and everything in the tooltip.
    const out: Node[] = [
      leaf(`Peak ${formatBytes(r.peak.requestedBytes)}`, `#${r.peak.index}`, { title: 'Show', command: 'headroom.showMemoryAt', arguments: ['peak'] }, `Peak: ${formatBytes(r.peak.requestedBytes)} requested, at event #${r.peak.index}`),
      leaf(`Shown ${formatBytes(c.instant.requestedBytes)}`, c.instantLabel, undefined, `Now showing ${formatBytes(c.instant.requestedBytes)} requested, ${c.instantLabel}`),
      leaf(`Reserved ${formatBytes(reservedAt(r, c.instant.index))}`, `peak ${formatBytes(r.reservedPeak.bytes)}`),
      leaf('Timeline', `${r.n.toLocaleString('en-US')} events`, { title: 'Show Memory Timeline', command: 'headroom.showTimeline' }, 'Show the memory timeline'),
    ];
    const local = await this.mapping.resolve(c.attribution.lines.slice(0, 15).map((l) => l.file), false);
    out.push(
      group('Top lines', () =>
        c.attribution.lines
          .filter((l) => l.selfBytes > 0)
          .slice(0, 15)
          .map((l) => {
            const f = local.get(l.file);
            const cmd = f ? { title: 'Open', command: 'vscode.open', arguments: [vscode.Uri.file(f), { selection: new vscode.Range(l.line - 1, 0, l.line - 1, 0) }] } : undefined;
            return leaf(`${formatBytes(l.selfBytes)} ${l.file.split('/').pop()}:${l.line}`, l.name, cmd, `${formatBytes(l.selfBytes)} at ${l.file}:${l.line} (${l.name})${f ? '' : ', not in this workspace'}`);
          }),
        true,
      ),
    );
    if (c.attribution.buckets.length) out.push(group('Without a user frame', () => c.attribution.buckets.map((b) => leaf(formatBytes(b.bytes), BUCKET_LABELS[b.kind], undefined, `${formatBytes(b.bytes)} in ${b.blocks} blocks: ${BUCKET_LABELS[b.kind]}`))));
    if (this.view.unmapped.length) {
      out.push(
        group('Frames not in this workspace', () => this.view.unmapped.map((u) => leaf(u.file.split('/').pop() ?? u.file, `${formatBytes(u.selfBytes)} · ${u.lines} lines`, undefined, `${u.file}: map it with headroom.pathMappings`)), false, `${this.view.unmapped.length}`),
      );
    }
    return out;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
