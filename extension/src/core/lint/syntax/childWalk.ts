import type { LanguageTables } from './wasmTables';

/** The parser's memory as typed views (syntaxTree.ts refreshes them when the memory grows). */
export interface Views {
  u8: Uint8Array;
  u16: Uint16Array;
  u32: Uint32Array;
  t: LanguageTables;
}

export const ERROR_SYMBOL = 65535;

/** A node's kind from its alias or grammar symbol: the public symbol (an error keeps ERROR_SYMBOL, outside the table). */
export function publicSymbolOf(t: LanguageTables, symbol: number): number {
  return symbol === ERROR_SYMBOL ? symbol : t.publicSymbol[symbol]!;
}

/**
 * A subtree's children in tree-sitter 0.25's memory layout (wasm32), read as its NodeChildIterator
 * reads them: where each starts (in bytes; rows and columns come from the text), its alias (by
 * structural index) and the field a tree cursor would name. Subtree heap data: padding at 4 and
 * size at 16 (bytes, rows, columns), error cost at 32, child count at 36, symbol at 40, flags at
 * 44 (visible, named, extra, …, missing at bit 9), visible child count at 48, production id at
 * 66; its children's 8-byte slots sit just before it. A slot with bit 0 set holds a leaf inline:
 * flags in byte 0 (shifted by one), symbol at 1, padding bytes at 6, size at 7.
 */
export class ChildWalk {
  slot = 0;
  /** The child's heap data (0: inline). */
  q = 0;
  /** Flags: 1 visible, 2 named, 4 extra. */
  f = 0;
  alias = 0;
  field = 0;
  /** Its structural index (-1: an extra). */
  index = -1;
  /** Where it starts, and where it ends (where the next child's padding starts), in bytes of UTF-16. */
  byte: number;
  endByte: number;
  /** Its own children in the subtree (0 for a leaf). */
  kids = 0;
  /** A node of its own (visible, or aliased); else a hidden node whose children count as its parent's. */
  relevant = false;
  private i = -1;
  private count = 0;
  private base = 0;
  private aliases = -1;
  private own!: Uint16Array;
  private structural = 0;
  /** The field a hidden parent passes on to children without one. */
  private outer = 0;

  constructor(
    private readonly v: Views,
    ptr: number,
    byte: number,
    outer: number,
  ) {
    this.byte = this.endByte = byte;
    this.reset(ptr, byte, outer);
  }

  /** Starts over on another subtree (a scan keeps one walk per depth rather than one per subtree). */
  reset(ptr: number, byte: number, outer: number): this {
    const { u16, u32, t } = this.v;
    this.count = u32[(ptr + 36) >> 2]!;
    this.base = ptr - this.count * 8;
    const production = u16[(ptr + 66) >> 1]!;
    this.aliases = production ? production * t.maxAliasLength : -1;
    this.own = t.ownFields[production]!;
    this.outer = outer;
    this.i = -1;
    this.structural = 0;
    this.byte = this.endByte = byte;
    return this;
  }

  next(): boolean {
    if (++this.i >= this.count) return false;
    const { u8, u16, u32, t } = this.v;
    const slot = (this.slot = this.base + this.i * 8);
    const b0 = u8[slot]!;
    const q = (this.q = b0 & 1 ? 0 : u32[slot >> 2]!);
    const f = (this.f = q ? u16[(q + 44) >> 1]! : b0 >> 1);
    this.alias = 0;
    this.field = 0;
    this.index = -1;
    if (!(f & 4)) {
      this.index = this.structural++;
      if (this.aliases >= 0) this.alias = t.aliasSequences[this.aliases + this.index]!;
      this.field = this.own[this.index] || this.outer;
    }
    // The first child starts where its parent does (the parent's start already includes its padding).
    this.byte = this.i > 0 ? this.endByte + (q ? u32[(q + 4) >> 2]! : u8[slot + 6]!) : this.endByte;
    this.endByte = this.byte + (q ? u32[(q + 16) >> 2]! : u8[slot + 7]!);
    this.kids = q ? u32[(q + 36) >> 2]! : 0;
    this.relevant = (f & 1) === 1 || this.alias > 0;
    return true;
  }

  /** How many visible nodes it stands for among its parent's children when hidden. */
  get visibleKids(): number {
    return this.kids ? this.v.u32[(this.q + 48) >> 2]! : 0;
  }

  /** Its kind: the alias or the symbol, as a public symbol (ERROR_SYMBOL for an error). */
  get symbol(): number {
    return publicSymbolOf(this.v.t, this.alias || (this.q ? this.v.u16[(this.q + 40) >> 1]! : this.v.u8[this.slot + 1]!));
  }
}
