import type { FlameNode } from '../../../extension/src/core/flame/protocol';
import type { FlameRect } from './layout';

export interface FlameMatches {
  /** Matching frames, top-down and left to right (the order Enter walks them in). */
  nodes: FlameNode[];
  ids: Set<number>;
  /** Bytes under the matches, each byte once (a match inside a match adds nothing). */
  bytes: number;
}

/** Frames whose label or file holds `query`: a plain substring, any case. An empty query matches nothing. */
export function searchFlame(root: FlameNode, query: string): FlameMatches {
  const q = query.trim().toLowerCase();
  const out: FlameMatches = { nodes: [], ids: new Set(), bytes: 0 };
  if (!q) return out;
  const visit = (n: FlameNode, inside: boolean): void => {
    const hit = n.label.toLowerCase().includes(q) || n.file.toLowerCase().includes(q);
    if (hit) {
      out.nodes.push(n);
      out.ids.add(n.id);
      if (!inside) out.bytes += n.bytes;
    }
    for (const c of n.children) visit(c, inside || hit);
  };
  visit(root, false);
  return out;
}

/** The neighbour a key moves to among the drawn frames: Up the parent, Down the largest child, Left and Right the siblings. */
export function neighbour(
  key: string,
  sel: FlameNode,
  parents: ReadonlyMap<number, FlameNode>,
  drawn: ReadonlyMap<number, FlameRect>,
): FlameNode | undefined {
  const parent = parents.get(sel.id);
  switch (key) {
    case 'ArrowUp':
      return parent;
    case 'ArrowDown':
      return sel.children.find((c) => drawn.has(c.id));
    case 'ArrowLeft':
    case 'ArrowRight': {
      if (!parent) return undefined;
      const sibs = parent.children.filter((c) => drawn.has(c.id));
      const i = sibs.indexOf(sel);
      return i < 0 ? undefined : sibs[i + (key === 'ArrowLeft' ? -1 : 1)];
    }
    default:
      return undefined;
  }
}
