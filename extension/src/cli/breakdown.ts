import type { DeviceAnalysis } from '../core/analysis/analyze';
import { breakdownRows, foldedGroups, wantsBreakdown } from '../core/analysis/breakdown';
import type { BreakdownRow } from '../core/analysis/breakdown';
import { callTree, lineKey } from '../core/analysis/callTree';
import type { CallTree } from '../core/analysis/callTree';
import { shortPath } from '../core/analysis/plumbing';
import { formatBytes } from '../core/format';
import type { AnalyzeReport } from '../core/report';
import type { Snapshot } from '../core/snapshot/model';
import { ClassNames } from '../core/source/classNames';
import { plain } from '../core/text';

export interface LineBreakdown {
  rows: BreakdownRow[];
  folded: string[];
}

/** The call tree at the report's instant, and the breakdown of every line that gets one (keyed as lines are). */
export function breakdowns(s: Snapshot, a: DeviceAnalysis, r: AnalyzeReport): { tree: CallTree; lines: Map<string, LineBreakdown> } {
  const tree = callTree(s, a, r.at.trace_index, new ClassNames());
  const lines = new Map<string, LineBreakdown>();
  for (const l of r.lines) {
    const key = lineKey(l.file, l.line);
    const b = tree.beneath.get(key);
    if (!wantsBreakdown(l.self_bytes, r.at.requested_bytes, b)) continue;
    const rows = breakdownRows(b);
    lines.set(key, { rows, folded: foldedGroups(b, rows) });
  }
  return { tree, lines };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The text rows beneath a line of `headroom analyze`, indented under its "line" column. */
export function renderBreakdown(b: LineBreakdown, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out = [`${pad}in library code beneath it${b.folded.length ? ` (folded: ${b.folded.map(plain).join(', ')})` : ''}:`];
  for (const r of b.rows) {
    const first = r.chain[0]!;
    const where = first.file ? `  ${plain(shortPath(first.file))}:${first.line}` : '';
    out.push(`${pad}${'  '.repeat(r.depth)}${formatBytes(r.bytes).padStart(10)} ${pct(r.share).padStart(6)}  ${r.chain.map((n) => plain(n.label)).join(' › ')}${where}`);
  }
  return out;
}
