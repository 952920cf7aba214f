import type { Language } from '@vscode/tree-sitter-wasm';

/** The views emscripten keeps on the parser's memory (replaced when the memory grows). */
interface HeapSource {
  HEAPU8?: Uint8Array;
  HEAPU16?: Uint16Array;
  HEAPU32?: Uint32Array;
}

export interface Heap {
  u8: Uint8Array;
  u16: Uint16Array;
  u32: Uint32Array;
}

let source: HeapSource | undefined;

/** parser.ts hands over the options object web-tree-sitter's init made its module (emscripten sets HEAP* on it). */
export function setWasmModule(m: object): void {
  if (!source && (m as HeapSource).HEAPU32) source = m as HeapSource;
}

/** The parser's memory as it is now; undefined when the module was not handed over. */
export function wasmHeap(): Heap | undefined {
  const m = source;
  return m?.HEAPU8 && m.HEAPU16 && m.HEAPU32 ? { u8: m.HEAPU8, u16: m.HEAPU16, u32: m.HEAPU32 } : undefined;
}

export interface FieldEntry {
  field: number;
  child: number;
  inherited: boolean;
}

/** What reading nodes needs of a grammar: TSLanguage's tables, copied out of wasm memory once. */
export interface LanguageTables {
  types: (string | undefined)[];
  fieldIds: Map<string, number>;
  /** Field names by id. */
  fieldNameOf: (string | null)[];
  publicSymbol: Uint16Array;
  /** symbol_metadata's `named`, per symbol. */
  named: Uint8Array;
  aliasSequences: Uint16Array;
  maxAliasLength: number;
  /** Field map entries per production id. */
  fieldMaps: FieldEntry[][];
  /** Every symbol's name, hidden ones (`_simple_statements`) too, by grammar symbol. */
  symbolNames: string[];
  /** A production's field map entries for one field. */
  byField: Map<number, FieldEntry[]>[];
  /** Per production id and structural child index: the child's own (not inherited) field, as a cursor names it. */
  ownFields: Uint16Array[];
  /** Per production id: the fields it gives through a hidden child (inherited). */
  inherits: Set<number>[];
}

const tables = new WeakMap<Language, LanguageTables | null>();

const cString = (u8: Uint8Array, p: number): string => {
  let e = p;
  while (u8[e]) e++;
  return new TextDecoder().decode(u8.subarray(p, e));
};

/**
 * TSLanguage (tree-sitter 0.25, ABI 14/15, wasm32): its counts, then pointers from byte 40 on.
 * Null when what the struct holds disagrees with the parser's own answers (another layout).
 */
export function languageTables(language: Language): LanguageTables | null {
  let t = tables.get(language);
  if (t === undefined) {
    try {
      t = readTables(language);
    } catch {
      t = null;
    }
    tables.set(language, t);
  }
  return t;
}

function readTables(language: Language): LanguageTables | null {
  const heap = wasmHeap();
  const lp = (language as unknown as Record<number, number>)[0];
  if (!heap || !lp) return null;
  const { u8, u16, u32 } = heap;
  const word = (off: number) => u32[(lp + off) >> 2]!;
  const symbols = word(4) + word(8); // symbols and aliases
  const productions = word(28);
  const fieldCount = word(32);
  const maxAliasLength = u16[(lp + 36) >> 1]!;
  if (symbols !== language.types.length || fieldCount + 1 !== language.fields.length) return null;
  const [symbolNames, fieldNames, slices, entries, metadata, publicMap, , aliases] = [56, 60, 64, 68, 72, 76, 80, 84].map(word) as number[];
  for (let i = 0; i < symbols; i++) {
    const name = language.types[i];
    if (name !== undefined && cString(u8, u32[(symbolNames! >> 2) + i]!) !== name) return null;
  }
  for (let i = 1; i <= fieldCount; i++) if (cString(u8, u32[(fieldNames! >> 2) + i]!) !== language.fields[i]) return null;
  const named = new Uint8Array(symbols);
  for (let i = 0; i < symbols; i++) named[i] = u8[metadata! + i * 3 + 1]!;
  const fieldMaps: FieldEntry[][] = [];
  for (let p = 0; p < productions; p++) {
    const index = u16[(slices! >> 1) + p * 2]!;
    const length = u16[(slices! >> 1) + p * 2 + 1]!;
    const list: FieldEntry[] = [];
    for (let k = index; k < index + length; k++) {
      const e = entries! + k * 4;
      list.push({ field: u16[e >> 1]!, child: u8[e + 2]!, inherited: u8[e + 3] === 1 });
    }
    fieldMaps.push(fieldCount ? list : []);
  }
  const ownFields = fieldMaps.map((list) => {
    const own = new Uint16Array(maxAliasLength + 1);
    for (const e of [...list].reverse()) if (!e.inherited && e.child < own.length) own[e.child] = e.field;
    return own;
  });
  const fieldIds = new Map<string, number>();
  language.fields.forEach((f, i) => f && fieldIds.set(f, i));
  return {
    types: language.types,
    fieldIds,
    fieldNameOf: language.fields,
    publicSymbol: u16.slice(publicMap! >> 1, (publicMap! >> 1) + symbols),
    named,
    aliasSequences: u16.slice(aliases! >> 1, (aliases! >> 1) + productions * maxAliasLength),
    maxAliasLength,
    fieldMaps,
    symbolNames: Array.from({ length: symbols }, (_, i) => cString(u8, u32[(symbolNames! >> 2) + i]!)),
    byField: fieldMaps.map((list) => {
      const m = new Map<number, FieldEntry[]>();
      for (const e of list) m.set(e.field, [...(m.get(e.field) ?? []), e]);
      return m;
    }),
    ownFields,
    inherits: fieldMaps.map((list) => new Set(list.filter((e) => e.inherited).map((e) => e.field))),
  };
}
