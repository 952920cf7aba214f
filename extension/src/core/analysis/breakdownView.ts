import type { BreakdownView } from '../protocol';
import type { AnalyzeReport } from '../report';
import { lineBreakdowns, rowNames, rowWhere } from './breakdown';
import type { LineBreakdown } from './breakdown';
import { lineKey } from './callNode';
import type { CallTree } from './callNode';

/** The breakdown of each of the report's lines that gets one (keyed by lineKey); the tree is at the report's instant. */
export function reportBreakdowns(tree: CallTree, r: AnalyzeReport): Map<string, LineBreakdown> {
  return lineBreakdowns(
    tree,
    r.lines.map((l) => ({ file: l.file, line: l.line, selfBytes: l.self_bytes })),
    r.at.requested_bytes,
  );
}

/**
 * The summary page's breakdowns: under each of the report's lines that gets one, the same rows as
 * `headroom analyze` prints (its tree must be at the report's instant), in the report's order.
 */
export function breakdownViews(tree: CallTree, r: AnalyzeReport): BreakdownView[] {
  const lines = reportBreakdowns(tree, r);
  const out: BreakdownView[] = [];
  for (const l of r.lines) {
    const b = lines.get(lineKey(l.file, l.line));
    if (!b) continue;
    out.push({
      file: l.file,
      line: l.line,
      folded: b.folded,
      rows: b.rows.map((row) => {
        const first = row.chain[0]!;
        return {
          depth: row.depth,
          bytes: row.bytes,
          share: row.share,
          names: rowNames(row),
          file: first.file,
          line: first.line,
          where: rowWhere(row) ?? '',
        };
      }),
    });
  }
  return out;
}
