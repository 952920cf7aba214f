const SIZE = 256;

/**
 * The sink's slot of each key an entry reads by BINGET: the same dozen memo indices, millions of
 * times. Direct-mapped by memo index; exact, since a memo primitive never changes once stored.
 */
export class KeySlots {
  private readonly slots = new Map<string, number>();
  private readonly at = new Int32Array(SIZE).fill(-1);
  private readonly slot = new Uint8Array(SIZE);
  private readonly name: string[] = new Array<string>(SIZE).fill('');
  /** The slot of the values of keys the sink does not read. */
  readonly drop: number;

  constructor(keys: readonly string[]) {
    keys.forEach((k, i) => this.slots.set(k, i));
    this.drop = keys.length;
  }

  /** Memo entry i's slot when known, else -1. */
  cached(i: number): number {
    const h = i & (SIZE - 1);
    return this.at[h] === i ? this.slot[h]! : -1;
  }

  /** Memo entry i's key (when cached). */
  nameAt(i: number): string {
    return this.name[i & (SIZE - 1)]!;
  }

  /** The slot of `key`, remembered for memo entry i (-1: not from the memo). */
  of(key: string, i: number): number {
    const s = this.slots.get(key) ?? this.drop;
    if (i >= 0) {
      const h = i & (SIZE - 1);
      this.at[h] = i;
      this.slot[h] = s;
      this.name[h] = key;
    }
    return s;
  }
}
