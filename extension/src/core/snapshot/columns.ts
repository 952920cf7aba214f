/** Growable typed-array columns: the trace lives in these, not in one object per event. */

type TypedArray = Float64Array | Int32Array | Uint8Array;
type Ctor<T extends TypedArray> = { new (n: number): T };

export class Column<T extends TypedArray> {
  data: T;
  length = 0;

  constructor(
    private readonly ctor: Ctor<T>,
    capacity = 1024,
  ) {
    this.data = new ctor(capacity);
  }

  push(v: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = v;
  }

  /** Room for one more row, for a writer that sets data[length] and length itself. */
  reserve(): void {
    if (this.length === this.data.length) this.grow();
  }

  private grow(): void {
    // 1.5×, not 2×: less idle capacity in a multi-million-row trace.
    const next = new this.ctor(Math.ceil(this.data.length * 1.5) + 16);
    next.set(this.data);
    this.data = next;
  }

  /**
   * The filled part: a view, unless more than half the capacity is idle (a size estimate far too
   * high), when a right-sized copy is worth its moment of extra memory.
   */
  seal(): T {
    if (this.data.length - this.length > this.length + 1024) return this.data.slice(0, this.length) as T;
    return this.data.subarray(0, this.length) as T;
  }
}

export const f64 = (n?: number): Column<Float64Array> => new Column(Float64Array, n);
export const i32 = (n?: number): Column<Int32Array> => new Column(Int32Array, n);
export const u8 = (n?: number): Column<Uint8Array> => new Column(Uint8Array, n);

/** Interns strings (file names, function names, metadata) or numbers (raw stream pointers) to small ids. */
export class StringTable<K extends string | number = string> {
  readonly values: K[] = [];
  private readonly ids = new Map<K, number>();

  id(s: K): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(s);
      this.ids.set(s, id);
    }
    return id;
  }
}

/** Whether trace entries carry time_us (torch ≥ 2.2): any row's time is a number. */
export function hasTimes(c: { timeUs: Float64Array }): boolean {
  for (let i = 0; i < c.timeUs.length; i++) if (!Number.isNaN(c.timeUs[i])) return true;
  return false;
}
