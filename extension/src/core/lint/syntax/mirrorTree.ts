import type { Tree } from '@vscode/tree-sitter-wasm';
import { ChildWalk, ERROR_SYMBOL, publicSymbolOf } from './childWalk';
import type { Views } from './childWalk';
import { kindsAmong, scanKinds } from './mirrorScan';
import type { Prune, ScanNode, ScanTree } from './mirrorScan';
import { NodeRegistry } from './nodeRegistry';
import type { Point, SyntaxNode } from './syntaxNode';
import type { Heap, LanguageTables } from './wasmTables';
import { wasmHeap } from './wasmTables';

/** What a walk is for: reading a node's children, looking up a field, a descent to an index (which only goes down: one walk). */
export const enum WalkUse {
  Children,
  Field,
  Descent,
}

/** One parsed tree read straight from the parser's memory: no call into WebAssembly per node. */
export class Mirror implements Views, ScanTree {
  rootNode!: SyntaxNode;
  /** Every node made so far, by subtree slot: a node is made once, however it is reached. */
  readonly nodes = new NodeRegistry<MirrorNode>();
  /**
   * Walks kept for reuse, one per use and depth (a walk per subtree was most of what a lint
   * allocated): a use at a depth runs one walk at a time, and a nested read goes one level down.
   */
  private readonly walks: ChildWalk[][] = [[], [], []];

  /** The node at a subtree slot (mirrorScan.ts has nodes made through this: it imports nothing of this file). */
  make(slot: number, byte: number, alias: number, parent: MirrorNode, at: number, field: number): MirrorNode {
    return new MirrorNode(this, slot, byte, alias, parent, at, field);
  }

  /** A walk over the subtree at `ptr`, reused for this use and depth. */
  walkAt(use: WalkUse, depth: number, ptr: number, byte: number, outer: number): ChildWalk {
    const pool = this.walks[use]!;
    return pool[depth]?.reset(ptr, byte, outer) ?? (pool[depth] = new ChildWalk(this, ptr, byte, outer));
  }

  constructor(
    readonly t: LanguageTables,
    public u8: Uint8Array,
    public u16: Uint16Array,
    public u32: Uint32Array,
    readonly text: string,
  ) {}

  private lineStarts: Uint32Array | undefined;

  /** A text index as tree-sitter's point: rows end at `\n`, columns count UTF-16 units. */
  pointAt(index: number): Point {
    if (!this.lineStarts) {
      const starts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = Uint32Array.from(starts);
    }
    const ls = this.lineStarts;
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ls[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return { row: lo, column: index - ls[lo]! };
  }

  /** Emscripten replaces its views when the memory grows (a call into the parser may allocate); a detached view reads as empty. */
  refresh(): void {
    if (this.u8.length) return;
    const heap = wasmHeap();
    if (heap) ({ u8: this.u8, u16: this.u16, u32: this.u32 } = heap);
  }
}

const NONE: MirrorNode[] = [];

/**
 * A node read from its subtree in the parser's memory (childWalk.ts has the layout). Children are
 * read once and kept, so parent, children and fields cost a property read after the first time.
 * Valid while the tree is neither edited nor deleted, as the linter uses it.
 */
export class MirrorNode implements SyntaxNode, ScanNode {
  /** The subtree's heap data (0: an inline leaf). */
  readonly ptr: number;
  private readonly sym: number;
  readonly endByte: number;
  kids: MirrorNode[] | undefined;
  /** Some children come from a hidden child (the rule's children are not all its own). */
  private hoisted = false;
  /** Field lookups answered from the field map, as field, node pairs (rules ask a node for two or three fields, often again). */
  private fieldMemo: (number | MirrorNode | null)[] | undefined;
  private named: MirrorNode[] | undefined;
  private _type: string | undefined;

  constructor(
    readonly m: Mirror,
    /** The address of the subtree slot: tree-sitter's own node id. */
    readonly id: number,
    readonly startByte: number,
    private readonly alias: number,
    readonly parent: MirrorNode | null,
    /** Index among the parent's children. */
    private readonly at: number,
    /** The field the parent's grammar rule gives it (0: none), as a tree cursor reports it. */
    readonly field: number,
  ) {
    m.nodes.set(id, this);
    const { u8, u32, u16 } = m;
    this.ptr = u8[id]! & 1 ? 0 : u32[id >> 2]!;
    this.sym = this.ptr ? u16[(this.ptr + 40) >> 1]! : u8[id + 1]!;
    this.endByte = startByte + (this.ptr ? u32[(this.ptr + 16) >> 2]! : u8[id + 7]!);
  }

  get tree(): Mirror {
    return this.m;
  }

  get type(): string {
    this._type ??= this.m.t.types[publicSymbolOf(this.m.t, this.alias || this.sym)] ?? 'ERROR';
    return this._type;
  }

  get text(): string {
    return this.m.text.slice(this.startByte >> 1, this.endByte >> 1);
  }

  get startIndex(): number {
    return this.startByte >> 1;
  }

  get endIndex(): number {
    return this.endByte >> 1;
  }

  get startPosition(): Point {
    return this.m.pointAt(this.startByte >> 1);
  }

  get endPosition(): Point {
    return this.m.pointAt(this.endByte >> 1);
  }

  /** A flag bit of the heap data (inline leaves keep theirs in the slot's first byte, one bit up). */
  private flag(bit: number, inlineBit: number): boolean {
    return ((this.ptr ? this.m.u16[(this.ptr + 44) >> 1]! >> bit : this.m.u8[this.id]! >> inlineBit) & 1) === 1;
  }

  get isNamed(): boolean {
    if (this.alias) return this.m.t.named[this.alias] === 1;
    return this.sym === ERROR_SYMBOL || this.flag(1, 2);
  }

  get isMissing(): boolean {
    return this.flag(9, 5);
  }

  get isError(): boolean {
    return !this.alias && this.sym === ERROR_SYMBOL;
  }

  get hasError(): boolean {
    return this.isMissing || (this.ptr !== 0 && this.m.u32[(this.ptr + 32) >> 2]! > 0);
  }

  get rawCount(): number {
    return this.ptr ? this.m.u32[(this.ptr + 36) >> 2]! : 0;
  }

  /** The visible nodes under this one (ts_node_child): a hidden subtree's own are hoisted in its place. */
  get children(): MirrorNode[] {
    if (!this.kids) {
      const out: MirrorNode[] = [];
      if (this.rawCount) this.collect(this.ptr, this.startByte, 0, out, 0);
      this.kids = out;
    }
    return this.kids;
  }

  /** Making a node reads no children, so the walk at each depth stays this read's until it ends. */
  private collect(ptr: number, byte: number, outer: number, out: MirrorNode[], depth: number): void {
    for (const w = this.m.walkAt(WalkUse.Children, depth, ptr, byte, outer); w.next(); ) {
      if (w.relevant) out.push(this.m.nodes.get(w.slot) ?? new MirrorNode(this.m, w.slot, w.byte, w.alias, this, out.length, w.field));
      else if (w.visibleKids) {
        this.hoisted = true;
        this.collect(w.q, w.byte, w.field, out, depth + 1);
      }
    }
  }

  get namedChildren(): MirrorNode[] {
    if (!this.named) this.named = this.children.length ? this.children.filter((c) => c.isNamed) : NONE;
    return this.named;
  }

  get childCount(): number {
    return this.children.length;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  child(i: number): MirrorNode | null {
    return this.children[i] ?? null;
  }

  namedChild(i: number): MirrorNode | null {
    return this.namedChildren[i] ?? null;
  }

  /** The neighbours in the parent's children (tree-sitter's own differs only next to zero-width nodes in broken code). */
  get nextSibling(): MirrorNode | null {
    return this.parent?.children[this.at + 1] ?? null;
  }

  get previousSibling(): MirrorNode | null {
    return this.parent?.children[this.at - 1] ?? null;
  }

  equals(other: SyntaxNode): boolean {
    return other.tree === this.m && other.id === this.id;
  }

  /**
   * ts_node_child_by_field_id. Where every child is the rule's own (none hoisted from a hidden one)
   * and the field is not inherited, that is the first child a cursor names so; else the field map
   * is followed (the last answer kept: rules ask one node for one field several times).
   */
  childForFieldName(name: string): MirrorNode | null {
    const field = this.m.t.fieldIds.get(name);
    if (!field || !this.rawCount) return null;
    const kids = this.children;
    if (!this.hoisted && !this.m.t.inherits[this.m.u16[(this.ptr + 66) >> 1]!]!.has(field)) {
      for (const c of kids) if (c.field === field) return c;
      return null;
    }
    const memo = (this.fieldMemo ??= []);
    for (let i = 0; i < memo.length; i += 2) if (memo[i] === field) return memo[i + 1] as MirrorNode | null;
    const r = this.fieldIn(this.ptr, field, 0, 0);
    memo.push(field, r);
    return r;
  }

  childrenForFieldName(name: string): MirrorNode[] {
    const field = this.m.t.fieldIds.get(name);
    return field ? this.children.filter((c) => c.field === field) : NONE;
  }

  /**
   * The field's node in the subtree at `ptr`, whose visible nodes are this node's children from
   * `pos` on (a hidden subtree's nodes are hoisted into its visible parent's children).
   */
  private fieldIn(ptr: number, field: number, pos: number, depth: number): MirrorNode | null {
    if (!this.m.u32[(ptr + 48) >> 2]) return null;
    const entries = this.m.t.byField[this.m.u16[(ptr + 66) >> 1]!]!.get(field);
    if (!entries) return null;
    let k = 0;
    for (const w = this.m.walkAt(WalkUse.Field, depth, ptr, 0, 0); w.next(); pos += w.relevant ? 1 : w.visibleKids) {
      if (w.index < entries[k]!.child) continue;
      if (entries[k]!.inherited) {
        // The field is on one of the child's own children: a visible child's, or hoisted into ours.
        const r = !w.kids
          ? null
          : w.relevant
            ? this.children[pos]!.fieldIn(w.q, field, 0, depth + 1)
            : this.fieldIn(w.q, field, pos, depth + 1);
        if (r || k + 1 === entries.length) return r;
        k++;
      } else if (w.relevant || w.visibleKids > 0) return this.children[pos]!;
      else if (++k === entries.length) return null;
    }
    return null;
  }

  /** The fields a lookup on this node can find: its rule's (inherited ones too) and its children's as a cursor names them. */
  fieldNames(): string[] {
    const ids = new Set(this.ptr ? this.m.t.fieldMaps[this.m.u16[(this.ptr + 66) >> 1]!]?.map((e) => e.field) : []);
    for (const c of this.children) if (c.field) ids.add(c.field);
    return [...ids].map((id) => this.m.t.fieldNameOf[id]!);
  }

  /**
   * ts_node_descendant_for_byte_range (tree-sitter 0.25.1): down through the subtrees, hidden ones
   * included, to the innermost visible node spanning the range; only the nodes on the way are made.
   */
  descendantForIndex(start: number, end = start): MirrorNode | null {
    const s = start * 2;
    const e = end * 2;
    if (s > e) return null;
    let last: MirrorNode = this;
    // Where `last`'s next child is among its children.
    let pos = 0;
    if (!this.rawCount) return last;
    // One walk, reset at each level: a descent only goes down.
    const w = this.m.walkAt(WalkUse.Descent, 0, this.ptr, this.startByte, 0);
    while (w.next()) {
      // It must reach the range's end and pass its start (a zero-width node: reach it).
      if (w.endByte < e || (w.byte === w.endByte ? w.endByte < s : w.endByte <= s)) {
        pos += w.relevant ? 1 : w.visibleKids;
        continue;
      }
      if (s < w.byte) break;
      if (w.relevant) {
        last = this.m.nodes.get(w.slot) ?? new MirrorNode(this.m, w.slot, w.byte, w.alias, last, pos, w.field);
        pos = 0;
      }
      if (!w.kids) break;
      w.reset(w.q, w.byte, w.relevant ? 0 : w.field);
    }
    return last;
  }

  /**
   * The visible nodes of these kinds under this one (itself included), in document order, read
   * from the subtrees: only the matches and their ancestors become nodes (a file has ~3× more).
   */
  descendantsOfType(types: string | string[]): MirrorNode[] {
    const want = typeof types === 'string' ? [types] : types;
    const out: MirrorNode[] = [];
    if (want.includes(this.type)) out.push(this);
    if (this.kids) kindsAmong(this.kids, want, out);
    else if (this.rawCount) scanKinds(this, want, out);
    return out;
  }

  /**
   * descendantsOfType for kinds that only a statement's or a clause's children can be (loops,
   * definitions, `except`): expressions, most of a file, are not read (unless broken).
   */
  statementsOfType(types: readonly string[]): MirrorNode[] {
    const out: MirrorNode[] = [];
    if (types.includes(this.type)) out.push(this);
    if (this.kids) kindsAmong(this.kids, types, out);
    else if (this.rawCount) scanKinds(this, types, out, STATEMENT_PRUNE);
    return out;
  }
}

/**
 * Where statements can be: kinds that hold a block (or a clause with one), and not the hidden rule
 * of a line's simple statements (`x = f(y)`; `import a; b()`), which holds no compound statement.
 */
const STATEMENT_PRUNE: Prune = {
  enter: [
    'block',
    'if_statement',
    'elif_clause',
    'else_clause',
    'for_statement',
    'while_statement',
    'try_statement',
    'except_clause',
    'except_group_clause',
    'finally_clause',
    'with_statement',
    'function_definition',
    'class_definition',
    'decorated_definition',
    'match_statement',
    'case_clause',
  ],
  skipHidden: ['_simple_statements'],
};

/** The root of a parsed tree as a MirrorNode (ts_tree_root_node: it starts after its own padding). */
export function mirrorRoot(tree: Tree, text: string, t: LanguageTables, heap: Heap): SyntaxNode {
  const m = new Mirror(t, heap.u8, heap.u16, heap.u32, text);
  const addr = (tree as unknown as Record<number, number>)[0]!;
  const p = heap.u8[addr]! & 1 ? 0 : heap.u32[addr >> 2]!;
  const root = new MirrorNode(m, addr, p ? heap.u32[(p + 4) >> 2]! : heap.u8[addr + 6]!, 0, null, 0, 0);
  m.rootNode = root;
  return root;
}
