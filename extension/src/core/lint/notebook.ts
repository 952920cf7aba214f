import type { Finding } from './types';

/**
 * A notebook's code cells linted as one program (imports in the first cell count for the others).
 * IPython lines (`%magic`, `!shell`) become comments of the same length, so offsets stay put.
 */
export function joinCells(cells: readonly string[]): { text: string; starts: number[] } {
  const starts: number[] = [];
  let text = '';
  for (const c of cells) {
    starts.push(text.length);
    text += c.replace(/^([ \t]*)[%!]/gm, '$1#') + '\n';
  }
  return { text, starts };
}

/** The cell a finding of the joined text lies in, and the finding in that cell's own coordinates. */
export function splitFinding(
  f: Finding,
  cells: readonly string[],
  starts: readonly number[],
): { cell: number; finding: Finding } | undefined {
  let k = starts.length - 1;
  while (k > 0 && starts[k]! > f.startIndex) k--;
  const base = starts[k]!;
  if (f.endIndex > base + cells[k]!.length + 1) return undefined;
  const pos = (i: number) => {
    const before = cells[k]!.slice(0, i);
    const line = before.split('\n').length - 1;
    return { line, col: i - (before.lastIndexOf('\n') + 1) };
  };
  const s = f.startIndex - base;
  const e = Math.min(f.endIndex - base, cells[k]!.length);
  return {
    cell: k,
    finding: {
      ...f,
      startIndex: s,
      endIndex: e,
      start: pos(s),
      end: pos(e),
      fixes: f.fixes
        .filter((x) => x.edits.every((d) => d.start >= base && d.end <= base + cells[k]!.length))
        .map((x) => ({ ...x, edits: x.edits.map((d) => ({ ...d, start: d.start - base, end: d.end - base })) })),
    },
  };
}
