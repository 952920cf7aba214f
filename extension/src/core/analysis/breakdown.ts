import type { CallNode } from './callTree';

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

/** The rows to show beneath a line (its node from CallTree.beneath), largest first, depth first. */
export function breakdownRows(line: CallNode, o: BreakdownOptions = DEFAULT_BREAKDOWN): BreakdownRow[] {
  const rows: BreakdownRow[] = [];
  const min = line.bytes * o.minShare;
  const visit = (n: CallNode, depth: number): void => {
    for (const c of n.children) {
      if (rows.length >= o.maxRows || c.bytes < min) return;
      const chain = [c];
      let last = c;
      // Fold a path that does not branch (forward › loss › cross_entropy) into one row: the next
      // node holds (nearly) all of this one's bytes.
      while (last.children.length && last.children[0]!.bytes >= last.bytes * CHAIN_SHARE) chain.push((last = last.children[0]!));
      rows.push({ depth, chain, bytes: c.bytes, share: line.bytes > 0 ? c.bytes / line.bytes : 0 });
      if (depth + 1 < o.maxDepth) visit(last, depth + 1);
    }
  };
  visit(line, 0);
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
