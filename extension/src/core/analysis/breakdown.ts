import { lineKey } from './callNode';
import type { CallNode, CallTree } from './callNode';
import { shortPath } from './plumbing';

/**
 * The breakdown beneath a user line: the model code its bytes were allocated in, as every surface
 * shows it (the CLI's analyze, the summary page, the hover). Shown for a line holding at least a
 * quarter of the memory at the instant: there the line that called the model is most of the answer
 * and says least (the framework runs measured 52–90 % on one line); below it, the line list already
 * spreads the memory over several places.
 */
export const BREAKDOWN_MIN_SHARE = 0.25;

export interface BreakdownRow {
  depth: number;
  /** One node, or a chain of nodes each holding all of its parent's shown bytes (shown on one row). */
  chain: CallNode[];
  bytes: number;
  /** Of the line's self bytes. */
  share: number;
}

export interface BreakdownOptions {
  /** Rows below this share of the line are left out (their bytes stay in their parent's). */
  minShare: number;
  maxRows: number;
  maxDepth: number;
}

const CHAIN_SHARE = 0.99;

export const DEFAULT_BREAKDOWN: BreakdownOptions = { minShare: 0.05, maxRows: 12, maxDepth: 5 };

/** Whether a line holding `selfBytes` of `total` gets a breakdown: a large share, with library code beneath it. */
export function wantsBreakdown(selfBytes: number, total: number, beneath: CallNode | undefined): beneath is CallNode {
  return !!beneath && total > 0 && selfBytes / total >= BREAKDOWN_MIN_SHARE && beneath.children.some((c) => c.kind === 'library');
}

/**
 * The rows to show beneath a line (its node from CallTree.beneath), in tree order. Every top entry
 * over the share comes first (they are what covers the line); the room left goes to the largest
 * rows' children, largest first, so a deep chain never pushes a top entry out.
 */
export function breakdownRows(line: CallNode, o: BreakdownOptions = DEFAULT_BREAKDOWN): BreakdownRow[] {
  interface Item {
    row: BreakdownRow;
    last: CallNode;
    kids: Item[];
  }
  const min = line.bytes * o.minShare;
  const make = (c: CallNode, depth: number): Item => {
    const chain = [c];
    let last = c;
    // Fold a path that does not branch (forward › loss › cross_entropy) into one row: the next
    // node holds (nearly) all of this one's bytes.
    while (last.children.length && last.children[0]!.bytes >= last.bytes * CHAIN_SHARE) chain.push((last = last.children[0]!));
    return { row: { depth, chain, bytes: c.bytes, share: line.bytes > 0 ? c.bytes / line.bytes : 0 }, last, kids: [] };
  };
  const top = line.children
    .filter((c) => c.bytes >= min)
    .slice(0, o.maxRows)
    .map((c) => make(c, 0));
  const open = [...top];
  let count = top.length;
  while (count < o.maxRows && open.length) {
    let best = 0;
    for (let i = 1; i < open.length; i++) if (open[i]!.row.bytes > open[best]!.row.bytes) best = i;
    const it = open.splice(best, 1)[0]!;
    if (it.row.depth + 1 >= o.maxDepth) continue;
    for (const c of it.last.children) {
      if (c.bytes < min || count >= o.maxRows) break;
      const k = make(c, it.row.depth + 1);
      it.kids.push(k);
      open.push(k);
      count++;
    }
  }
  const rows: BreakdownRow[] = [];
  const flat = (items: Item[]): void => {
    for (const it of items) {
      rows.push(it.row);
      flat(it.kids);
    }
  };
  flat(top);
  return rows;
}

/** Plumbing folded between the line and the model code (the top rows' edges), for the "folded: …" note. */
export function foldedGroups(line: CallNode, rows: readonly BreakdownRow[]): string[] {
  const out = new Set<string>(line.selfVia);
  for (const r of rows) if (r.depth === 0) for (const g of r.chain[0]!.folded) out.add(g);
  return [...out].sort();
}

/** Bytes of the line's top-level entries that are model code (library nodes), and the share of the line they cover. */
export function libraryCoverage(line: CallNode): { bytes: number; share: number } {
  let bytes = 0;
  for (const c of line.children) if (c.kind === 'library') bytes += c.bytes;
  return { bytes, share: line.bytes > 0 ? bytes / line.bytes : 0 };
}

/** The breakdown under one line: its rows, and the plumbing folded between the line and them. */
export interface LineBreakdown {
  rows: BreakdownRow[];
  folded: string[];
}

/** A line as the reports name it. */
export interface BreakdownLine {
  file: string;
  line: number;
  selfBytes: number;
}

/**
 * The breakdown of every line that gets one (keyed by {@link lineKey}), out of `total` bytes live
 * at the tree's instant: what `headroom analyze`, the summary page and the hover all show.
 */
export function lineBreakdowns(
  tree: CallTree,
  lines: readonly BreakdownLine[],
  total: number,
  o: BreakdownOptions = DEFAULT_BREAKDOWN,
): Map<string, LineBreakdown> {
  const out = new Map<string, LineBreakdown>();
  for (const l of lines) {
    const key = lineKey(l.file, l.line);
    const b = tree.beneath.get(key);
    if (!wantsBreakdown(l.selfBytes, total, b)) continue;
    const rows = breakdownRows(b, o);
    out.set(key, { rows, folded: foldedGroups(b, rows) });
  }
  return out;
}

/** Rows shown where space is short (a hover): the deepest breakdown with at most `max` rows, else its top rows. */
export function compactRows(line: CallNode, max: number, o: BreakdownOptions = DEFAULT_BREAKDOWN): BreakdownRow[] {
  for (let depth = o.maxDepth; depth > 1; depth--) {
    const rows = breakdownRows(line, { ...o, maxDepth: depth, maxRows: max + 1 });
    if (rows.length <= max) return rows;
  }
  return breakdownRows(line, { ...o, maxDepth: 1, maxRows: max });
}

/** A row's chain of names (`Sequential.forward › ReLU.forward`), raw: each surface makes it text its own way. */
export function rowNames(r: BreakdownRow): string[] {
  return r.chain.map((n) => n.label);
}

/** Where a row's first frame is, as rows show it (`torch/nn/modules/container.py:253`: a library from its package down), or undefined for a bucket. */
export function rowWhere(r: BreakdownRow): string | undefined {
  const first = r.chain[0]!;
  return first.file ? `${shortPath(first.file)}:${first.line}` : undefined;
}
