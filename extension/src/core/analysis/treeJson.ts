import type { BreakdownRow } from './breakdown';
import type { CallNode } from './callNode';

/** A call-tree node in `--json`: snake_case, children pruned below `minBytes` (their bytes kept in `other_bytes`). */
export interface CallNodeJson {
  kind: CallNode['kind'];
  name: string;
  file?: string;
  line?: number;
  function?: string;
  bytes: number;
  blocks: number;
  self_bytes: number;
  folded?: string[];
  self_via?: string[];
  /** A plumbing frame shown because it allocated itself (the innermost Python frame): its group. */
  plumbing?: string;
  other_bytes?: number;
  children?: CallNodeJson[];
}

export function treeJson(n: CallNode, minBytes: number, depth = 0): CallNodeJson {
  const out: CallNodeJson = { kind: n.kind, name: n.label, bytes: n.bytes, blocks: n.blocks, self_bytes: n.selfBytes };
  if (n.file) Object.assign(out, { file: n.file, line: n.line, function: n.func });
  if (n.folded.length) out.folded = n.folded;
  if (n.selfVia.length) out.self_via = n.selfVia;
  if (n.plumbing) out.plumbing = n.plumbing;
  const kept = depth < 64 ? n.children.filter((c) => c.bytes >= minBytes) : [];
  let other = 0;
  for (const c of n.children) other += c.bytes;
  for (const c of kept) other -= c.bytes;
  if (other) out.other_bytes = other;
  if (kept.length) out.children = kept.map((c) => treeJson(c, minBytes, depth + 1));
  return out;
}

/** A breakdown as `--json` carries it under its line: each row's chain of frames. */
export function breakdownJson(rows: readonly BreakdownRow[]): {
  depth: number;
  bytes: number;
  share: number;
  frames: { name: string; file: string; line: number; function: string; kind: CallNode['kind']; plumbing?: string }[];
}[] {
  return rows.map((r) => ({
    depth: r.depth,
    bytes: r.bytes,
    share: Number(r.share.toFixed(4)),
    frames: r.chain.map((n) => ({
      name: n.label,
      file: n.file,
      line: n.line,
      function: n.func,
      kind: n.kind,
      ...(n.plumbing ? { plumbing: n.plumbing } : {}),
    })),
  }));
}
