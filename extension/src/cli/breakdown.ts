import type { DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import { rowNames, rowWhere } from '../core/analysis/breakdown';
import type { LineBreakdown } from '../core/analysis/breakdown';
import { reportBreakdowns } from '../core/analysis/breakdownView';
import { callTree } from '../core/analysis/callTree';
import type { CallTree } from '../core/analysis/callNode';
import type { ParamsCredit } from '../core/analysis/params';
import { formatBytes } from '../shared/format';
import type { AnalyzeReport } from '../core/report';
import type { Snapshot } from '../core/snapshot/model';
import { ClassNames } from '../core/source/classNames';
import { plain } from '../shared/text';

/** The call tree at the report's instant, and the breakdown of every line that gets one (keyed as lines are). */
export function breakdowns(
  s: Snapshot,
  a: DeviceAnalysis,
  r: AnalyzeReport,
  params?: ParamsCredit,
): { tree: CallTree; lines: Map<string, LineBreakdown> } {
  const tree = callTree(s, a, r.at.trace_index, new ClassNames(), params);
  return { tree, lines: reportBreakdowns(tree, r) };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The text rows beneath a line of `headroom analyze`, indented under its "line" column. */
export function renderBreakdown(b: LineBreakdown, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out = [`${pad}in library code beneath it${b.folded.length ? ` (folded: ${b.folded.map(plain).join(', ')})` : ''}:`];
  for (const r of b.rows) {
    const where = rowWhere(r);
    out.push(
      `${pad}${'  '.repeat(r.depth)}${formatBytes(r.bytes).padStart(10)} ${pct(r.share).padStart(6)}  ${rowNames(r).map(plain).join(' › ')}${where ? `  ${plain(where)}` : ''}`,
    );
  }
  return out;
}
