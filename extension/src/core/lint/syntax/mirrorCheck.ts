import type { SyntaxNode } from './syntaxNode';

/**
 * The first difference between two readings of one tree (a MirrorNode and web-tree-sitter's node),
 * or undefined: every node's kind, range, flags, children and fields (all of them, or those
 * `fields` names for the node), and the node found at each
 * `step`-th index and at each zero-width node. syntaxTree.ts runs it once per grammar before trusting the mirror; tests run it
 * over real and broken files.
 */
export function firstDifference(
  a: SyntaxNode,
  b: SyntaxNode,
  fields: readonly string[] | ((n: SyntaxNode) => readonly string[]),
  step = 0,
): string | undefined {
  const facts = (n: SyntaxNode) =>
    JSON.stringify([
      n.id,
      n.type,
      n.startIndex,
      n.endIndex,
      n.startPosition,
      n.endPosition,
      n.childCount,
      n.namedChildCount,
      n.isNamed,
      n.isMissing,
      n.isError,
      n.hasError,
    ]);
  const ids = (xs: readonly (SyntaxNode | null)[]) => xs.map((x) => x?.id ?? 0).join(',');
  // Nodes by kind, asked before any node is read (a scan of the subtrees) and after (over nodes read).
  // Not ERROR: web-tree-sitter's own search misses most kinds when ERROR is among them (unsorted symbols).
  const kinds = ['call', 'identifier', 'block', 'comment', 'keyword_argument', 'function_definition', 'for_statement', 'string_content'];
  const byKind = () => (ids(a.descendantsOfType(kinds)) === ids(b.descendantsOfType(kinds)) ? undefined : 'descendants by kind');
  const early = byKind();
  if (early) return early;
  const stack: [SyntaxNode, SyntaxNode][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    const fx = facts(x);
    if (fx !== facts(y)) return `${fx} vs ${facts(y)}`;
    if (ids(x.namedChildren) !== ids(y.namedChildren)) return `named children of ${fx}`;
    if (x.parent?.id !== y.parent?.id) return `parent of ${fx}`;
    for (const f of typeof fields === 'function' ? fields(x) : fields) {
      if ((x.childForFieldName(f)?.id ?? 0) !== (y.childForFieldName(f)?.id ?? 0)) return `field ${f} of ${fx}`;
      if (ids(x.childrenForFieldName(f)) !== ids(y.childrenForFieldName(f))) return `fields ${f} of ${fx}`;
    }
    // The node found at its own start and end (zero-width nodes are the edge case there).
    for (const i of step > 0 && x.startIndex === x.endIndex ? [x.startIndex] : []) {
      if (a.descendantForIndex(i)?.id !== b.descendantForIndex(i)?.id) return `descendant at ${i}`;
    }
    const xs = x.children;
    const ys = y.children;
    if (ids(xs) !== ids(ys)) return `children of ${fx}`;
    for (let i = xs.length - 1; i >= 0; i--) stack.push([xs[i]!, ys[i]!]);
  }
  const late = byKind();
  if (late) return late;
  for (let i = 0; step > 0 && i <= a.endIndex; i += step) {
    if (a.descendantForIndex(i)?.id !== b.descendantForIndex(i)?.id) return `descendant at ${i}`;
    if (a.descendantForIndex(i, i + step)?.id !== b.descendantForIndex(i, i + step)?.id) return `descendant over ${i}..${i + step}`;
  }
  return undefined;
}
