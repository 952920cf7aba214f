import type { CallNode } from '../analysis/callNode';
import type { FlameNode } from './protocol';

/** The widest graph planned for (a 4K screen), and the narrowest frame sent: half a pixel of it. */
export const FLAME_WIDTH_PX = 4096;
export const FLAME_MIN_PX = 0.5;
/** Whatever the tree: at most this many frames in one message, and this many levels below its top. */
export const FLAME_MAX_NODES = 20_000;
export const FLAME_MAX_DEPTH = 128;

export interface PruneOptions {
  minBytes: number;
  maxNodes?: number;
  maxDepth?: number;
}

/** The fewest bytes a frame needs to be sent when `total` bytes span the graph's full width. */
export function flameMinBytes(total: number): number {
  return Math.max(1, (total * FLAME_MIN_PX) / FLAME_WIDTH_PX);
}

/** Numbers the frames of a session and remembers the call-tree node behind each (to open or expand it). */
export class FlameIds {
  private next = 0;
  readonly nodes = new Map<number, CallNode>();

  add(n: CallNode): number {
    const id = this.next++;
    this.nodes.set(id, n);
    return id;
  }
}

/** Frames kept at `minBytes`, counting no further than `budget`. */
function kept(n: CallNode, minBytes: number, maxDepth: number, depth: number, budget: number): number {
  let c = 1;
  if (depth >= maxDepth) return c;
  for (const k of n.children) {
    if (k.bytes < minBytes) break; // children are sorted by bytes, largest first
    c += kept(k, minBytes, maxDepth, depth + 1, budget - c);
    if (c > budget) return c;
  }
  return c;
}

function build(n: CallNode, id: number, ids: FlameIds, minBytes: number, maxDepth: number, depth: number): FlameNode {
  const out: FlameNode = {
    id,
    kind: n.kind,
    label: n.label,
    file: n.file,
    line: n.line,
    bytes: n.bytes,
    blocks: n.blocks,
    selfBytes: n.selfBytes,
    otherBytes: 0,
    otherCount: 0,
    folded: n.folded,
    selfVia: n.selfVia,
    children: [],
  };
  for (const k of n.children) {
    if (depth < maxDepth && k.bytes >= minBytes) out.children.push(build(k, ids.add(k), ids, minBytes, maxDepth, depth + 1));
    else {
      out.otherBytes += k.bytes;
      out.otherCount++;
    }
  }
  return out;
}

/**
 * The call tree as the flame graph draws it: children with fewer than `minBytes` (narrower than
 * half a pixel of the widest graph) are left out, their bytes and number kept in the parent's
 * `otherBytes` and `otherCount`, so that every frame still adds up (bytes = children + self +
 * other) and the top's bytes are the whole tree's. Past `maxNodes` frames the threshold doubles
 * until they fit. `id` keeps a frame's number when it is sent again, expanded.
 */
export function pruneFlame(root: CallNode, ids: FlameIds, opts: PruneOptions, id?: number): FlameNode {
  const maxNodes = opts.maxNodes ?? FLAME_MAX_NODES;
  const maxDepth = opts.maxDepth ?? FLAME_MAX_DEPTH;
  let minBytes = Math.max(1, opts.minBytes);
  while (kept(root, minBytes, maxDepth, 0, maxNodes) > maxNodes) minBytes *= 2;
  return build(root, id ?? ids.add(root), ids, minBytes, maxDepth, 0);
}
