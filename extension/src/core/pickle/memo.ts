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

/**
 * The pickle memo in fixed-size typed chunks: a multi-million-entry memo grows without copying
 * itself, a sparse index (LONG_BINPUT 400000000) costs one chunk, and the garbage collector has
 * little to trace. Each entry is an int32: a non-negative integer value as itself (the row and
 * stack ids that replace trace entries and frame lists), LAZY as -1, anything else as -(index + 2)
 * into a table of objects, in which equal strings share one slot ('N/A' is memoized a million
 * times) and slots freed by replace() are reused. Per entry also: its kind (see the machine's
 * Kind), whether it is sealed, and its depth.
 */
export class Memo {
  private refs: Int32Array[] = [];
  private meta: Uint8Array[] = [];
  private depths: Uint8Array[] = [];
  private objects: PyValue[] = [];
  private free: number[] = [];
  private strings = new Map<string, number>();
  /** Entries stored: MEMOIZE's next index, as CPython's len(memo). */
  count = 0;

  has(i: number): boolean {
    const m = this.meta[i >>> SHIFT];
    return m !== undefined && (m[i & MASK]! & PRESENT) !== 0;
  }

  get(i: number): PyValue {
    const r = this.refs[i >>> SHIFT]![i & MASK]!;
    return r >= 0 ? r : r === LAZY_REF ? LAZY : this.objects[-r - 2]!;
  }

  kind(i: number): number {
    return this.meta[i >>> SHIFT]![i & MASK]! & KIND;
  }

  sealed(i: number): boolean {
    return (this.meta[i >>> SHIFT]![i & MASK]! & SEALED) !== 0;
  }

  depth(i: number): number {
    return this.depths[i >>> SHIFT]![i & MASK]!;
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
    const r = this.refs[i >>> SHIFT]![i & MASK]!;
    if (r < LAZY_REF && typeof this.objects[-r - 2] !== 'string') {
      this.objects[-r - 2] = null;
      this.free.push(-r - 2);
    }
  }

  set(i: number, v: PyValue, kind: number, sealed: boolean, depth: number): void {
    const c = i >>> SHIFT;
    if (this.meta[c] === undefined) {
      this.refs[c] = new Int32Array(SIZE);
      this.meta[c] = new Uint8Array(SIZE);
      this.depths[c] = new Uint8Array(SIZE);
    }
    const m = this.meta[c]!;
    if ((m[i & MASK]! & PRESENT) === 0) this.count++;
    this.refs[c]![i & MASK] = this.ref(v);
    m[i & MASK] = PRESENT | (sealed ? SEALED : 0) | kind;
    this.depths[c]![i & MASK] = depth;
  }

  /** The entry now holds `v`, a primitive standing for the container it replaced. */
  replace(i: number, v: PyValue): void {
    this.release(i);
    this.refs[i >>> SHIFT]![i & MASK] = this.ref(v);
    this.meta[i >>> SHIFT]![i & MASK] = PRESENT | SEALED;
  }

  /** Replaces the value only (a lazily created dict taking its placeholder's place). */
  setValue(i: number, v: PyValue): void {
    this.release(i);
    this.refs[i >>> SHIFT]![i & MASK] = this.ref(v);
  }

  seal(i: number): void {
    this.meta[i >>> SHIFT]![i & MASK]! |= SEALED;
  }

  setDepth(i: number, d: number): void {
    this.depths[i >>> SHIFT]![i & MASK] = d;
  }

  clear(): void {
    this.refs = [];
    this.meta = [];
    this.depths = [];
    this.objects = [];
    this.free = [];
    this.strings.clear();
  }
}
