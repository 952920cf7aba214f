import type { FlameNode } from '../../../extension/src/core/flame/protocol';

/** One drawn frame: its row (0 = the top) and its horizontal extent in CSS pixels. */
export interface FlameRect {
  node: FlameNode;
  depth: number;
  x: number;
  w: number;
}

/**
 * Icicle layout, zoomed into the last node of `path` (the top first, each the parent of the
 * next): the path's frames each span the full width on their own row; beneath the zoomed frame,
 * each child takes its share of its parent's width, the largest first from the left, and what the
 * parent holds itself (self and left-out bytes) is the gap at its right. A frame narrower than
 * `minPx` is not laid out, nor anything beneath it. Pure (no DOM): the unit tests import it.
 */
export function layoutFlame(path: readonly FlameNode[], width: number, minPx: number): FlameRect[] {
  const out: FlameRect[] = [];
  const focus = path.at(-1);
  if (!focus || !(width > 0)) return out;
  path.forEach((node, depth) => out.push({ node, depth, x: 0, w: width }));
  const scale = focus.bytes > 0 ? width / focus.bytes : 0;
  const place = (n: FlameNode, depth: number, x: number): void => {
    let at = x;
    for (const c of n.children) {
      const w = c.bytes * scale;
      if (w >= minPx) {
        out.push({ node: c, depth, x: at, w });
        place(c, depth + 1, at);
      }
      at += w;
    }
  };
  place(focus, path.length, 0);
  return out;
}

/** Each node's parent, by id, for walking up (the tree holds only children). */
export function parentsOf(root: FlameNode, into = new Map<number, FlameNode>()): Map<number, FlameNode> {
  const stack = [root];
  for (let n = stack.pop(); n; n = stack.pop()) {
    for (const c of n.children) {
      into.set(c.id, n);
      stack.push(c);
    }
  }
  return into;
}

/** The path from the top to `node` (both included), or [root] when node is not under it. */
export function pathTo(node: FlameNode, root: FlameNode, parents: ReadonlyMap<number, FlameNode>): FlameNode[] {
  const path = [node];
  for (let p = parents.get(node.id); p; p = parents.get(p.id)) path.unshift(p);
  return path[0] === root ? path : [root];
}

/** What identifies a frame across sessions (the same call at another instant): its kind, label and line. */
export const keyOf = (n: FlameNode): string => `${n.kind}\u0000${n.label}\u0000${n.file}\u0000${n.line}`;

/** A zoom path (keys from keyOf, the top first) in a new tree, as far as its frames still exist there. */
export function samePath(keys: readonly string[], root: FlameNode): FlameNode[] {
  const out = [root];
  for (const k of keys.slice(1)) {
    const next = out.at(-1)!.children.find((c) => keyOf(c) === k);
    if (!next) break;
    out.push(next);
  }
  return out;
}

/** The frame numbered `id` under `root`. */
export function findNode(root: FlameNode, id: number): FlameNode | undefined {
  const stack = [root];
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (n.id === id) return n;
    stack.push(...n.children);
  }
  return undefined;
}

/** Whether anything under `n` was left out by the host (so zooming into it can show more). */
export function hasPruned(n: FlameNode): boolean {
  const stack = [n];
  for (let c = stack.pop(); c; c = stack.pop()) {
    if (c.otherCount > 0) return true;
    stack.push(...c.children);
  }
  return false;
}
