import { breakdownRows, compactRows, foldedGroups, rowNames, wantsBreakdown } from './breakdown';
import { lineKey } from './callNode';
import type { CallTree } from './callNode';

/** Rows a hover shows at most (the summary page lists the whole breakdown). */
export const HOVER_ROWS = 8;

export interface CompactRow {
  depth: number;
  bytes: number;
  /** Of the line's self bytes. */
  share: number;
  /** The row's chain of names, raw (each surface makes it text its own way). */
  names: string[];
  /** The row's first frame: its file ('' for a bucket) and line. */
  file: string;
  line: number;
  /** That frame by its file's name (`container.py:253`): the hover is narrow. Undefined for a bucket. */
  where: string | undefined;
}

export interface CompactBreakdown {
  rows: CompactRow[];
  /** Plumbing folded between the line and the model code (of the full breakdown). */
  folded: string[];
  /** Rows of the full breakdown left out (the summary page lists them). */
  more: number;
}

/**
 * The breakdown beneath a line as a narrow surface shows it: the deepest one with at most `max`
 * rows (compactRows). Undefined when the line gets none (wantsBreakdown).
 */
export function compactBreakdown(
  tree: CallTree,
  file: string,
  line: number,
  selfBytes: number,
  total: number,
  max = HOVER_ROWS,
): CompactBreakdown | undefined {
  const b = tree.beneath.get(lineKey(file, line));
  if (!wantsBreakdown(selfBytes, total, b)) return undefined;
  const all = breakdownRows(b);
  const rows = compactRows(b, max);
  return {
    rows: rows.map((r) => {
      const first = r.chain[0]!;
      const name = first.file.slice(Math.max(first.file.lastIndexOf('/'), first.file.lastIndexOf('\\')) + 1);
      return {
        depth: r.depth,
        bytes: r.bytes,
        share: r.share,
        names: rowNames(r),
        file: first.file,
        line: first.line,
        where: first.file ? `${name}:${first.line}` : undefined,
      };
    }),
    folded: foldedGroups(b, all),
    more: all.length - rows.length,
  };
}
