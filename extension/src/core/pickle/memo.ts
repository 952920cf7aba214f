import type { PyValue } from './values';

const SHIFT = 14;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;

const PRESENT = 0x10;
const SEALED = 0x08;
const KIND = 0x07;

/**
 * The pickle memo in fixed-size chunks: a multi-million-entry memo grows without ever copying
 * itself, and a sparse index (LONG_BINPUT 400000000) costs one chunk, not a huge array.
 * Per entry: the value, its kind (see the machine's Kind), whether it is sealed, and its depth.
 */
export class Memo {
  private vals: PyValue[][] = [];
  private meta: Uint8Array[] = [];
  private depths: Uint8Array[] = [];
  /** Entries stored: MEMOIZE's next index, as CPython's len(memo). */
  count = 0;

  has(i: number): boolean {
    const m = this.meta[i >>> SHIFT];
    return m !== undefined && (m[i & MASK]! & PRESENT) !== 0;
  }

  get(i: number): PyValue {
    return this.vals[i >>> SHIFT]![i & MASK]!;
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

  set(i: number, v: PyValue, kind: number, sealed: boolean, depth: number): void {
    const c = i >>> SHIFT;
    if (this.meta[c] === undefined) {
      this.vals[c] = new Array<PyValue>(SIZE);
      this.meta[c] = new Uint8Array(SIZE);
      this.depths[c] = new Uint8Array(SIZE);
    }
    const m = this.meta[c]!;
    if ((m[i & MASK]! & PRESENT) === 0) this.count++;
    this.vals[c]![i & MASK] = v;
    m[i & MASK] = PRESENT | (sealed ? SEALED : 0) | kind;
    this.depths[c]![i & MASK] = depth;
  }

  /** The entry now holds `v`, a primitive standing for the container it replaced. */
  replace(i: number, v: PyValue): void {
    this.vals[i >>> SHIFT]![i & MASK] = v;
    this.meta[i >>> SHIFT]![i & MASK] = PRESENT | SEALED;
  }

  /** Replaces the value only (a lazily created dict taking its placeholder's place). */
  setValue(i: number, v: PyValue): void {
    this.vals[i >>> SHIFT]![i & MASK] = v;
  }

  seal(i: number): void {
    this.meta[i >>> SHIFT]![i & MASK]! |= SEALED;
  }

  setDepth(i: number, d: number): void {
    this.depths[i >>> SHIFT]![i & MASK] = d;
  }

  clear(): void {
    this.vals = [];
    this.meta = [];
    this.depths = [];
  }
}
