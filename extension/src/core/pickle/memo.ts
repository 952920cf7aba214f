import type { PyDict, PyValue } from './values';

/**
 * EMPTY_DICT pushes this placeholder; the machine creates the real object at the first SETITEMS,
 * unless the freshDict hook consumes the items first (millions of trace entries never become
 * objects). The memo stores it as a reserved ref, so it costs no object slot.
 */
export const LAZY: PyDict = Object.freeze({}) as PyDict;
const LAZY_REF = -1;

const SHIFT = 14;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;

const PRESENT = 0x10;
const SEALED = 0x08;
const KIND = 0x07;

/** What one out-of-order entry is charged, in entries: a Map slot costs about 64 chunk slots. */
export const SPARSE_COST = 64;

/** ref, meta and depth of an out-of-order entry, packed into one double (45 bits). */
const pack = (ref: number, meta: number, depth: number): number => (ref + 2 ** 31) * 8192 + meta * 256 + depth;
const refOfPacked = (p: number): number => Math.floor(p / 8192) - 2 ** 31;
const metaOfPacked = (p: number): number => Math.floor(p / 256) & 0x1f;
const depthOfPacked = (p: number): number => p & 0xff;

/**
 * The pickle memo in fixed-size typed chunks: it grows without copying itself, and the garbage
 * collector has little to trace. An entry is an int32: a non-negative integer as itself (row and
 * stack ids), LAZY as -1, else -(index + 2) into a table of objects where equal strings share a
 * slot ('N/A' is memoized a million times) and freed slots are reused; and its kind, seal, depth.
 *
 * pickle.dump numbers entries 0, 1, 2…; an index far beyond those filled goes to a small map and
 * its chunk stays sparse: a LONG_BINPUT every 16384 indices costs what it holds, not 96 KiB each.
 */
export class Memo {
  private refs: Int32Array[] = [];
  private meta: Uint8Array[] = [];
  private depths: Uint8Array[] = [];
  private objects: PyValue[] = [];
  private free: number[] = [];
  private strings = new Map<string, number>();
  private sparse = new Map<number, number>();
  private sparseChunks = new Set<number>();
  private chunks = 0;
  /** Entries stored: MEMOIZE's next index, as CPython's len(memo). */
  count = 0;

  /** What the memo costs, in entries: chunk slots allocated plus SPARSE_COST per sparse entry. */
  get cost(): number {
    return this.chunks * SIZE + this.sparse.size * SPARSE_COST;
  }

  get sparseCount(): number {
    return this.sparse.size;
  }

  has(i: number): boolean {
    const m = this.meta[i >>> SHIFT];
    if (m === undefined) return this.sparse.has(i);
    return (m[i & MASK]! & PRESENT) !== 0;
  }

  private refOf(i: number): number {
    const c = this.refs[i >>> SHIFT];
    return c !== undefined ? c[i & MASK]! : refOfPacked(this.sparse.get(i)!);
  }

  private metaOf(i: number): number {
    const c = this.meta[i >>> SHIFT];
    return c !== undefined ? c[i & MASK]! : metaOfPacked(this.sparse.get(i)!);
  }

  get(i: number): PyValue {
    const r = this.refOf(i);
    return r >= 0 ? r : r === LAZY_REF ? LAZY : this.objects[-r - 2]!;
  }

  /** Entry i's value if a primitive, else LAZY: one lookup (entries.ts). */
  primitive(i: number): PyValue {
    const c = i >>> SHIFT;
    const m = this.meta[c];
    if (m === undefined) return this.has(i) && this.kind(i) === 0 ? this.get(i) : LAZY;
    if ((m[i & MASK]! & (PRESENT | KIND)) !== PRESENT) return LAZY;
    const r = this.refs[c]![i & MASK]!;
    return r >= 0 ? r : this.objects[-r - 2]!;
  }

  kind(i: number): number {
    return this.metaOf(i) & KIND;
  }

  sealed(i: number): boolean {
    return (this.metaOf(i) & SEALED) !== 0;
  }

  depth(i: number): number {
    const c = this.depths[i >>> SHIFT];
    return c !== undefined ? c[i & MASK]! : depthOfPacked(this.sparse.get(i)!);
  }

  /** Updates the fields given of an existing entry. */
  private write(i: number, ref: number | undefined, meta: number | undefined, depth: number | undefined): void {
    const c = i >>> SHIFT;
    const m = this.meta[c];
    if (m === undefined) {
      const p = this.sparse.get(i)!;
      this.sparse.set(i, pack(ref ?? refOfPacked(p), meta ?? metaOfPacked(p), depth ?? depthOfPacked(p)));
      return;
    }
    if (ref !== undefined) this.refs[c]![i & MASK] = ref;
    if (meta !== undefined) m[i & MASK] = meta;
    if (depth !== undefined) this.depths[c]![i & MASK] = depth;
  }

  private ref(v: PyValue): number {
    if (typeof v === 'number' && (v | 0) === v && v >= 0 && !Object.is(v, -0)) return v;
    if (v === LAZY) return LAZY_REF;
    if (typeof v === 'string') {
      let id = this.strings.get(v);
      if (id === undefined) {
        id = this.slot(v);
        this.strings.set(v, id);
      }
      return -id - 2;
    }
    return -this.slot(v) - 2;
  }

  private slot(v: PyValue): number {
    const id = this.free.pop();
    if (id === undefined) return this.objects.push(v) - 1;
    this.objects[id] = v;
    return id;
  }

  /** Releases the object slot of entry i, unless it is a (shared) string. */
  private release(i: number): void {
    const r = this.refOf(i);
    if (r < LAZY_REF && typeof this.objects[-r - 2] !== 'string') {
      this.objects[-r - 2] = null;
      this.free.push(-r - 2);
    }
  }

  /** Stores a new entry; the caller has checked that `i` is free. */
  set(i: number, v: PyValue, kind: number, sealed: boolean, depth: number): void {
    const c = i >>> SHIFT;
    const meta = PRESENT | (sealed ? SEALED : 0) | kind;
    this.count++;
    if (this.meta[c] === undefined) {
      if (this.sparseChunks.has(c) || c > (this.count >>> SHIFT) + 1) {
        this.sparseChunks.add(c);
        this.sparse.set(i, pack(this.ref(v), meta, depth));
        return;
      }
      this.refs[c] = new Int32Array(SIZE);
      this.meta[c] = new Uint8Array(SIZE);
      this.depths[c] = new Uint8Array(SIZE);
      this.chunks++;
    }
    this.refs[c]![i & MASK] = this.ref(v);
    this.meta[c]![i & MASK] = meta;
    this.depths[c]![i & MASK] = depth;
  }

  /** The entry now holds `v`, a primitive standing for the container it replaced. */
  replace(i: number, v: PyValue): void {
    this.release(i);
    this.write(i, this.ref(v), PRESENT | SEALED, undefined);
  }

  /** Replaces the value only (a lazily created dict taking its placeholder's place). */
  setValue(i: number, v: PyValue): void {
    this.release(i);
    this.write(i, this.ref(v), undefined, undefined);
  }

  seal(i: number): void {
    this.write(i, undefined, this.metaOf(i) | SEALED, undefined);
  }

  setDepth(i: number, d: number): void {
    this.write(i, undefined, undefined, d);
  }

  clear(): void {
    this.refs = [];
    this.meta = [];
    this.depths = [];
    this.objects = [];
    this.free = [];
    this.strings.clear();
    this.sparse.clear();
    this.sparseChunks.clear();
  }
}
