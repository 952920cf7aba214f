import { Parser } from '@vscode/tree-sitter-wasm';
import type { Language, Tree } from '@vscode/tree-sitter-wasm';
import { firstDifference } from './mirrorCheck';
import { languageTables, wasmHeap } from './wasmTables';
import type { LanguageTables } from './wasmTables';

export interface Point {
  row: number;
  column: number;
}

/**
 * The part of tree-sitter's node API the linter uses. Both web-tree-sitter's own nodes and
 * MirrorNode (below) have it; rules read one or the other through rootOf().
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
  equals(other: SyntaxNode): boolean;
}

/** One parsed tree read straight from the parser's memory: no call into WebAssembly per node. */
class Mirror {
  rootNode!: SyntaxNode;
  /** Every node made so far, by subtree slot: a node is made once, however it is reached. */
  readonly nodes = new Map<number, MirrorNode>();

  constructor(
    readonly t: LanguageTables,
    public u8: Uint8Array,
    public u16: Uint16Array,
    public u32: Uint32Array,
    readonly text: string,
  ) {}

  /** Emscripten replaces its views when the memory grows (a call into the parser may allocate); a detached view reads as empty. */
  refresh(): void {
    if (this.u8.length) return;
    const heap = wasmHeap();
    if (heap) ({ u8: this.u8, u16: this.u16, u32: this.u32 } = heap);
  }
}

const ERROR_SYMBOL = 65535;
const NONE: MirrorNode[] = [];

/**
 * A node of a tree-sitter tree, read from the subtree in the parser's memory (tree-sitter 0.25's
 * layout, wasm32; wasmTables.ts checks it against the parser's own answers before any is used).
 * Children are read once and kept, so parent, children and fields cost a property read after the
 * first time. Valid while the tree is neither edited nor deleted, as the linter uses it.
 */
class MirrorNode implements SyntaxNode {
  /** The subtree's heap data (0: an inline leaf). */
  private readonly ptr: number;
  private readonly sym: number;
  private readonly endByte: number;
  kids: MirrorNode[] | undefined;
  private named: MirrorNode[] | undefined;
  private _type: string | undefined;
  private fields: Map<number, MirrorNode | null> | undefined;

  constructor(
    private readonly m: Mirror,
    /** The address of the subtree slot: tree-sitter's own node id. */
    readonly id: number,
    private readonly startByte: number,
    private readonly startRow: number,
    private readonly startCol: number,
    private readonly alias: number,
    readonly parent: MirrorNode | null,
    /** Index among the parent's children. */
    private readonly at: number,
    /** The field the parent's grammar rule gives it (0: none), as a tree cursor reports it. */
    private readonly field: number,
  ) {
    m.nodes.set(id, this);
    const { u8, u32, u16 } = m;
    if (u8[id]! & 1) {
      this.ptr = 0;
      this.sym = u8[id + 1]!;
      this.endByte = startByte + u8[id + 7]!;
    } else {
      const p = u32[id >> 2]!;
      this.ptr = p;
      this.sym = u16[(p + 40) >> 1]!;
      this.endByte = startByte + u32[(p + 16) >> 2]!;
    }
  }

  get tree(): Mirror {
    return this.m;
  }

  get type(): string {
    if (this._type === undefined) {
      const s = this.alias || this.sym;
      this._type = (s === ERROR_SYMBOL ? undefined : this.m.t.types[this.m.t.publicSymbol[s]!]) ?? 'ERROR';
    }
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
    return { row: this.startRow, column: this.startCol >> 1 };
  }

  get endPosition(): Point {
    const { u8, u32 } = this.m;
    let rows: number;
    let cols: number;
    if (this.ptr) {
      rows = u32[(this.ptr + 20) >> 2]!;
      cols = u32[(this.ptr + 24) >> 2]!;
    } else {
      rows = 0;
      cols = u8[this.id + 7]!;
    }
    return rows > 0 ? { row: this.startRow + rows, column: cols >> 1 } : { row: this.startRow, column: (this.startCol + cols) >> 1 };
  }

  /** tree-sitter's flag bits: inline leaves keep them in the slot's first byte, shifted by one. */
  private flag(heapBit: number): boolean {
    return this.ptr ? ((this.m.u16[(this.ptr + 44) >> 1]! >> heapBit) & 1) === 1 : false;
  }

  private get visible(): boolean {
    return this.ptr ? this.flag(0) : ((this.m.u8[this.id]! >> 1) & 1) === 1;
  }

  get isNamed(): boolean {
    if (this.alias) return this.m.t.named[this.alias] === 1;
    if (this.sym === ERROR_SYMBOL) return true;
    return this.ptr ? this.flag(1) : ((this.m.u8[this.id]! >> 2) & 1) === 1;
  }

  private get extra(): boolean {
    return this.ptr ? this.flag(2) : ((this.m.u8[this.id]! >> 3) & 1) === 1;
  }

  get isMissing(): boolean {
    return this.ptr ? this.flag(9) : ((this.m.u8[this.id]! >> 5) & 1) === 1;
  }

  get isError(): boolean {
    return !this.alias && this.sym === ERROR_SYMBOL;
  }

  get hasError(): boolean {
    return this.isMissing || (this.ptr !== 0 && this.m.u32[(this.ptr + 32) >> 2]! > 0);
  }

  private get rawCount(): number {
    return this.ptr ? this.m.u32[(this.ptr + 36) >> 2]! : 0;
  }

  /**
   * The visible nodes under this one: its subtree's children, those hidden by the grammar replaced
   * by their own visible children (ts_node_child_iterator_next and ts_node__child).
   */
  get children(): MirrorNode[] {
    if (!this.kids) {
      const out: MirrorNode[] = [];
      if (this.rawCount) this.collect(this.ptr, this.startByte, this.startRow, this.startCol, 0, out);
      this.kids = out;
    }
    return this.kids;
  }

  private collect(ptr: number, byte: number, row: number, col: number, outer: number, out: MirrorNode[]): void {
    const { u8, u32, u16, t } = this.m;
    const count = u32[(ptr + 36) >> 2]!;
    const production = u16[(ptr + 66) >> 1]!;
    const aliases = production ? production * t.maxAliasLength : -1;
    let structural = 0;
    let slot = ptr - count * 8;
    for (let i = 0; i < count; i++, slot += 8) {
      let padBytes: number, padRows: number, padCols: number, sizeBytes: number, sizeRows: number, sizeCols: number;
      let visible: boolean, extra: boolean, childPtr: number;
      const b0 = u8[slot]!;
      if (b0 & 1) {
        childPtr = 0;
        visible = ((b0 >> 1) & 1) === 1;
        extra = ((b0 >> 3) & 1) === 1;
        padCols = u8[slot + 4]!;
        padRows = u8[slot + 5]! & 15;
        padBytes = u8[slot + 6]!;
        sizeBytes = u8[slot + 7]!;
        sizeRows = 0;
        sizeCols = sizeBytes;
      } else {
        childPtr = u32[slot >> 2]!;
        const f = u16[(childPtr + 44) >> 1]!;
        visible = (f & 1) === 1;
        extra = ((f >> 2) & 1) === 1;
        padBytes = u32[(childPtr + 4) >> 2]!;
        padRows = u32[(childPtr + 8) >> 2]!;
        padCols = u32[(childPtr + 12) >> 2]!;
        sizeBytes = u32[(childPtr + 16) >> 2]!;
        sizeRows = u32[(childPtr + 20) >> 2]!;
        sizeCols = u32[(childPtr + 24) >> 2]!;
      }
      let alias = 0;
      // ts_tree_cursor_current_field_id: its own field, else the hidden parent's; none for an extra.
      let field = 0;
      if (!extra) {
        if (aliases >= 0) alias = t.aliasSequences[aliases + structural]!;
        field = t.ownFields[production]![structural] || outer;
        structural++;
      }
      // The first child starts where its parent does (the parent's start already includes its padding).
      if (i > 0) {
        byte += padBytes;
        if (padRows > 0) {
          row += padRows;
          col = padCols;
        } else col += padCols;
      }
      if (visible || alias) out.push(this.m.nodes.get(slot) ?? new MirrorNode(this.m, slot, byte, row, col, alias, this, out.length, field));
      else if (childPtr && u32[(childPtr + 36) >> 2]! > 0 && u32[(childPtr + 48) >> 2]! > 0) this.collect(childPtr, byte, row, col, field, out);
      byte += sizeBytes;
      if (sizeRows > 0) {
        row += sizeRows;
        col = sizeCols;
      } else col += sizeCols;
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

  /** ts_node_child_by_field_id, answered from the children already read (memoised per field). */
  childForFieldName(name: string): MirrorNode | null {
    const field = this.m.t.fieldIds.get(name);
    if (!field || !this.rawCount) return null;
    this.fields ??= new Map();
    let n = this.fields.get(field);
    if (n === undefined) {
      n = this.fieldIn(this.ptr, field, 0);
      this.fields.set(field, n);
    }
    return n;
  }

  childrenForFieldName(name: string): MirrorNode[] {
    const field = this.m.t.fieldIds.get(name);
    return field ? this.children.filter((c) => c.field === field) : NONE;
  }

  /**
   * The field's node in the subtree at `ptr`, whose visible nodes are this node's children from
   * `pos` on (a hidden subtree's nodes are hoisted into its visible parent's children).
   */
  private fieldIn(ptr: number, field: number, pos: number): MirrorNode | null {
    const { u8, u32, u16, t } = this.m;
    const count = u32[(ptr + 36) >> 2]!;
    if (!count || !u32[(ptr + 48) >> 2]) return null;
    const production = u16[(ptr + 66) >> 1]!;
    const entries = t.fieldMaps[production]?.filter((e) => e.field === field);
    if (!entries?.length) return null;
    const aliases = production ? production * t.maxAliasLength : -1;
    let k = 0;
    let structural = 0;
    for (let i = 0, slot = ptr - count * 8; i < count; i++, slot += 8) {
      const b0 = u8[slot]!;
      const inline = (b0 & 1) === 1;
      const q = inline ? 0 : u32[slot >> 2]!;
      const f = inline ? b0 >> 1 : u16[(q + 44) >> 1]!;
      const extra = inline ? ((b0 >> 3) & 1) === 1 : ((f >> 2) & 1) === 1;
      const relevant = (f & 1) === 1 || (!extra && aliases >= 0 && t.aliasSequences[aliases + structural]! > 0);
      const visibleKids = q && u32[(q + 36) >> 2]! > 0 ? u32[(q + 48) >> 2]! : 0;
      if (!extra) {
        const index = structural++;
        if (index >= entries[k]!.child) {
          if (entries[k]!.inherited) {
            // The field is on one of the child's own children: a visible child's, or hoisted into ours.
            const r = !q ? null : relevant ? this.children[pos]!.fieldIn(q, field, 0) : this.fieldIn(q, field, pos);
            if (r || k + 1 === entries.length) return r;
            k++;
          } else if (relevant || visibleKids > 0) return this.children[pos]!;
          else if (++k === entries.length) return null;
        }
      }
      pos += relevant ? 1 : visibleKids;
    }
    return null;
  }

  /**
   * ts_node_descendant_for_byte_range (tree-sitter 0.25.1): down through the subtrees, hidden ones
   * included, to the innermost visible node spanning the range; only the nodes on the way are made.
   */
  descendantForIndex(start: number, end = start): MirrorNode | null {
    const s = start * 2;
    const e = end * 2;
    if (s > e) return null;
    const { u8, u32, u16, t } = this.m;
    let last: MirrorNode = this;
    let ptr = this.ptr;
    // Where `last`'s next child is among its children, and the field a hidden parent passes on.
    let pos = 0;
    let outer = 0;
    let byte = this.startByte;
    let row = this.startRow;
    let col = this.startCol;
    descend: while (ptr && u32[(ptr + 36) >> 2]!) {
      const count = u32[(ptr + 36) >> 2]!;
      const production = u16[(ptr + 66) >> 1]!;
      const aliases = production ? production * t.maxAliasLength : -1;
      let structural = 0;
      for (let i = 0, slot = ptr - count * 8; i < count; i++, slot += 8) {
        const b0 = u8[slot]!;
        const q = b0 & 1 ? 0 : u32[slot >> 2]!;
        const f = q ? u16[(q + 44) >> 1]! : b0 >> 1;
        const extra = ((f >> 2) & 1) === 1;
        let alias = 0;
        let field = 0;
        if (!extra) {
          if (aliases >= 0) alias = t.aliasSequences[aliases + structural]!;
          field = t.ownFields[production]![structural] || outer;
          structural++;
        }
        if (i > 0) {
          const padRows = q ? u32[(q + 8) >> 2]! : u8[slot + 5]! & 15;
          const padCols = q ? u32[(q + 12) >> 2]! : u8[slot + 4]!;
          byte += q ? u32[(q + 4) >> 2]! : u8[slot + 6]!;
          if (padRows > 0) {
            row += padRows;
            col = padCols;
          } else col += padCols;
        }
        const at = { byte, row, col };
        const sizeRows = q ? u32[(q + 20) >> 2]! : 0;
        const sizeCols = q ? u32[(q + 24) >> 2]! : u8[slot + 7]!;
        byte += q ? u32[(q + 16) >> 2]! : u8[slot + 7]!;
        if (sizeRows > 0) {
          row += sizeRows;
          col = sizeCols;
        } else col += sizeCols;
        const relevant = (f & 1) === 1 || alias > 0;
        const empty = at.byte === byte;
        // It must reach the range's end and pass its start (a zero-width node: reach it).
        if (byte < e || (empty ? byte < s : byte <= s)) {
          pos += relevant ? 1 : q && u32[(q + 36) >> 2]! > 0 ? u32[(q + 48) >> 2]! : 0;
          continue;
        }
        if (s < at.byte) break;
        if (relevant) {
          last = this.m.nodes.get(slot) ?? new MirrorNode(this.m, slot, at.byte, at.row, at.col, alias, last, pos, field);
          pos = 0;
          outer = 0;
        } else outer = field;
        ptr = q;
        ({ byte, row, col } = at);
        continue descend;
      }
      break;
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
    if (this.kids) for (const c of this.kids) out.push(...c.descendantsOfType(want));
    else if (this.rawCount) {
      const { t } = this.m;
      // The wanted kinds as public symbols (an ERROR node's symbol is outside the table).
      const wanted = new Uint8Array(t.types.length);
      t.types.forEach((name, i) => name !== undefined && want.includes(name) && (wanted[i] = 1));
      const path = newPath(64);
      path.node[0] = this;
      this.scan(this.ptr, this.startByte, this.startRow, this.startCol, 0, 0, path, wanted, want.includes('ERROR'), out);
    }
    return out;
  }

  /**
   * collect's walk, making nodes only for the matches and their ancestors. `path` holds the visible
   * nodes passed on the way down (made or not); `depth` is the one whose children these are.
   */
  private scan(ptr: number, byte: number, row: number, col: number, outer: number, depth: number, path: Path, wanted: Uint8Array, errors: boolean, out: MirrorNode[]): void {
    const { u8, u32, u16, t } = this.m;
    const count = u32[(ptr + 36) >> 2]!;
    const production = u16[(ptr + 66) >> 1]!;
    const aliases = production ? production * t.maxAliasLength : -1;
    const own = t.ownFields[production]!;
    let structural = 0;
    for (let i = 0, slot = ptr - count * 8; i < count; i++, slot += 8) {
      const b0 = u8[slot]!;
      const q = b0 & 1 ? 0 : u32[slot >> 2]!;
      const f = q ? u16[(q + 44) >> 1]! : b0 >> 1;
      let alias = 0;
      let field = 0;
      if (!(f & 4)) {
        if (aliases >= 0) alias = t.aliasSequences[aliases + structural]!;
        field = own[structural] || outer;
        structural++;
      }
      if (i > 0) {
        if (q) {
          byte += u32[(q + 4) >> 2]!;
          const padRows = u32[(q + 8) >> 2]!;
          if (padRows > 0) {
            row += padRows;
            col = u32[(q + 12) >> 2]!;
          } else col += u32[(q + 12) >> 2]!;
        } else {
          byte += u8[slot + 6]!;
          const padRows = u8[slot + 5]! & 15;
          if (padRows > 0) {
            row += padRows;
            col = u8[slot + 4]!;
          } else col += u8[slot + 4]!;
        }
      }
      const kids = q ? u32[(q + 36) >> 2]! : 0;
      if (f & 1 || alias) {
        const sym = alias || (q ? u16[(q + 40) >> 1]! : u8[slot + 1]!);
        const match = sym === ERROR_SYMBOL ? errors : wanted[t.publicSymbol[sym]!] === 1;
        const at = path.next[depth]!++;
        if (kids || match) {
          // Only a node that may become an ancestor (or is a match) goes on the path.
          const d = depth + 1;
          if (d >= path.slot.length) growPath(path);
          path.node[d] = this.m.nodes.get(slot);
          path.slot[d] = slot;
          path.byte[d] = byte;
          path.row[d] = row;
          path.col[d] = col;
          path.alias[d] = alias;
          path.field[d] = field;
          path.at[d] = at;
          path.next[d] = 0;
          if (match) out.push(this.made(path, d));
          if (kids) {
            const done = path.node[d];
            if (done?.kids) for (const c of done.kids) out.push(...c.descendantsOfType(t.types.filter((n, k) => n !== undefined && wanted[k]) as string[]));
            else this.scan(q, byte, row, col, 0, d, path, wanted, errors, out);
          }
        }
      } else if (kids && u32[(q + 48) >> 2]!) this.scan(q, byte, row, col, field, depth, path, wanted, errors, out);
      if (q) {
        byte += u32[(q + 16) >> 2]!;
        const sizeRows = u32[(q + 20) >> 2]!;
        if (sizeRows > 0) {
          row += sizeRows;
          col = u32[(q + 24) >> 2]!;
        } else col += u32[(q + 24) >> 2]!;
      } else {
        byte += u8[slot + 7]!;
        col += u8[slot + 7]!;
      }
    }
  }

  /** The node at `depth` of a scan's path, made with its ancestors (or the one made before: nodes keep their identity). */
  private made(path: Path, depth: number): MirrorNode {
    let n = path.node[depth];
    if (!n) {
      const parent = this.made(path, depth - 1);
      const slot = path.slot[depth]!;
      n = this.m.nodes.get(slot) ?? new MirrorNode(this.m, slot, path.byte[depth]!, path.row[depth]!, path.col[depth]!, path.alias[depth]!, parent, path.at[depth]!, path.field[depth]!);
      path.node[depth] = n;
    }
    return n;
  }
}

/** The visible nodes a scan is inside, by depth (arrays, not an object per node: a file has tens of thousands). */
interface Path {
  node: (MirrorNode | undefined)[];
  slot: Uint32Array;
  byte: Uint32Array;
  row: Uint32Array;
  col: Uint32Array;
  alias: Uint32Array;
  field: Uint32Array;
  at: Uint32Array;
  /** How many of its children the scan has passed. */
  next: Uint32Array;
}

function newPath(size: number): Path {
  const a = () => new Uint32Array(size);
  return { node: new Array<MirrorNode | undefined>(size).fill(undefined), slot: a(), byte: a(), row: a(), col: a(), alias: a(), field: a(), at: a(), next: a() };
}

/** Doubles a path's room (deeply nested code). */
function growPath(p: Path): void {
  const q = newPath(p.slot.length * 2);
  for (const k of ['slot', 'byte', 'row', 'col', 'alias', 'field', 'at', 'next'] as const) q[k].set(p[k]);
  p.node.length = q.node.length;
  for (const k of ['slot', 'byte', 'row', 'col', 'alias', 'field', 'at', 'next'] as const) p[k] = q[k];
}

const roots = new WeakMap<Tree, SyntaxNode>();
let mirrorOn = true;

/** Read trees through the parser's API instead (tests and the bench compare the two). */
export function setMirrorReads(on: boolean): void {
  mirrorOn = on;
}
const trusted = new WeakMap<Language, boolean>();

/** Python that has every kind of node the check below must see read alike: aliases, hidden rules, fields, extras, errors, a missing token. */
const SAMPLE = [
  '# comment\nfrom __future__ import annotations\nimport a.b as c, d\nfrom .e import (f as g, h)\nfrom i import *',
  '@dec(1, k=2)\nclass C(B, metaclass=M):\n    """doc"""\n    x: int = 3\n    async def m(self, a, /, b=1, *c, d: "T" = 2, **e) -> None:',
  '        global q\n        async with s() as (t, u), v: await w\n        return [y async for y in z if y] or {k: v for k, v in q.items()} or (p for p in r)',
  'def f(*, a):\n    try:\n        yield from g\n    except* (E, F) as e:\n        raise X from e\n    else:\n        pass\n    finally:\n        del a[1:2:3], b.c',
  'match p:\n    case [1, *rest] | {"k": _} if rest:\n        print(f"{x!r:>{w}} {y=}", \'a\' \'b\', r"\\d", b"\\x00")\n    case Point(x=0) as pt:\n        lambda a, *b, c=1: (a := c)',
  'while not done:\n    x += 1; y @= z ** -w if w else ~v\n    assert x, "m"\nelse:\n    for i, (j, k) in enumerate(l): continue',
  'type A[T] = list[T]\nx = [1, 2,\nprint x\ndef broken(:\n    return )\ny = "é😀" + \'\\u00e9\'  # ünïcode\r\nz = {**a, *b}',
].join('\n');

/** Whether this grammar's trees read the same from memory as through the parser's API (once per grammar). */
function mirrorTrusted(language: Language, t: LanguageTables): boolean {
  let ok = trusted.get(language);
  if (ok === undefined) {
    const parser = new Parser();
    parser.setLanguage(language);
    const sample = parser.parse(SAMPLE);
    try {
      const heap = wasmHeap();
      ok = !!sample && !!heap && firstDifference(mirrorRoot(sample, SAMPLE, t, heap), sample.rootNode as unknown as SyntaxNode, language.fields.filter((f): f is string => !!f), 3) === undefined;
    } catch {
      ok = false;
    } finally {
      sample?.delete();
      parser.delete();
    }
    trusted.set(language, ok);
  }
  return ok;
}

/**
 * The root of `tree` (parsed from `text`) as the linter reads it: a MirrorNode when the parser's
 * memory reads the same as its API on a sample, else web-tree-sitter's own node. One root per tree,
 * so nodes keep their identity across calls; don't use it after the tree is edited.
 */
export function rootOf(tree: Tree, text: string): SyntaxNode {
  let root = roots.get(tree);
  if (!root) {
    const t = languageTables(tree.language);
    const heap = mirrorOn && t && mirrorTrusted(tree.language, t) ? wasmHeap() : undefined;
    root = t && heap ? mirrorRoot(tree, text, t, heap) : (tree.rootNode as unknown as SyntaxNode);
    roots.set(tree, root);
  } else if (root.tree instanceof Mirror) root.tree.refresh();
  return root;
}

/** A mirror root with no check of the layout: for wasmTables' own check. */
export function mirrorRoot(tree: Tree, text: string, t: LanguageTables, heap: { u8: Uint8Array; u16: Uint16Array; u32: Uint32Array }): SyntaxNode {
  const m = new Mirror(t, heap.u8, heap.u16, heap.u32, text);
  const addr = (tree as unknown as Record<number, number>)[0]!;
  // ts_tree_root_node: the root starts after its own padding.
  const b0 = heap.u8[addr]!;
  let byte: number, row: number, col: number;
  if (b0 & 1) {
    col = heap.u8[addr + 4]!;
    row = heap.u8[addr + 5]! & 15;
    byte = heap.u8[addr + 6]!;
  } else {
    const p = heap.u32[addr >> 2]!;
    byte = heap.u32[(p + 4) >> 2]!;
    row = heap.u32[(p + 8) >> 2]!;
    col = heap.u32[(p + 12) >> 2]!;
  }
  const root = new MirrorNode(m, addr, byte, row, col, 0, null, 0, 0);
  m.rootNode = root;
  return root;
}
