// The node API the linter reads, apart from the readers that give it (syntaxTree.ts, mirrorTree.ts).

export interface Point {
  row: number;
  column: number;
}

/**
 * The part of tree-sitter's node API the linter uses. Both web-tree-sitter's own nodes and
 * MirrorNode (mirrorTree.ts) have it; rules read one or the other through rootOf().
 */
export interface SyntaxNode {
  readonly id: number;
  /** Its tree: identity for per-tree memos, and the way back to the root. */
  readonly tree: { readonly rootNode: SyntaxNode };
  readonly type: string;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: Point;
  readonly endPosition: Point;
  readonly parent: SyntaxNode | null;
  readonly children: (SyntaxNode | null)[];
  readonly namedChildren: (SyntaxNode | null)[];
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly nextSibling: SyntaxNode | null;
  readonly previousSibling: SyntaxNode | null;
  readonly hasError: boolean;
  readonly isMissing: boolean;
  readonly isError: boolean;
  readonly isNamed: boolean;
  child(index: number): SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
  childForFieldName(name: string): SyntaxNode | null;
  childrenForFieldName(name: string): (SyntaxNode | null)[];
  descendantForIndex(start: number, end?: number): SyntaxNode | null;
  descendantsOfType(types: string | string[]): (SyntaxNode | null)[];
  /** descendantsOfType for kinds only statements and clauses hold, reading no expression (MirrorNode only). */
  statementsOfType?(types: readonly string[]): SyntaxNode[];
  equals(other: SyntaxNode): boolean;
}
