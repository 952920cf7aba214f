import type { ListRead } from './entryList';

const SIZE = 1 << 12;

/**
 * Frames lists already made into stack ids, by their items' memo indices: a real capture writes a
 * new list for most entries, of frame dicts it wrote before. Only lists whose items the decoder
 * sealed are kept, and a sealed frame dict's memo entry never changes again (its value, kind and
 * depth; the VM refuses to change a shared container), so the same indices make the same stack
 * and depth, and the checks and interning need not be repeated. Direct-mapped: a clash replaces.
 */
export class ListCache {
  private readonly keys: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(SIZE).fill(undefined);
  private readonly ids = new Int32Array(SIZE);
  private readonly depths = new Int32Array(SIZE);

  /** The stack id of the list just read (its depth in l.depth), or -1. */
  find(l: ListRead): number {
    const h = l.hash & (SIZE - 1);
    const key = this.keys[h];
    if (key === undefined || key.length !== l.count) return -1;
    const items = l.items;
    for (let i = 0; i < key.length; i++) if (key[i] !== items[i]) return -1;
    l.depth = this.depths[h]!;
    return this.ids[h]!;
  }

  /** The list's stack id, once its items are sealed. */
  add(l: ListRead, id: number): void {
    const h = l.hash & (SIZE - 1);
    const key = new Int32Array(l.count);
    for (let i = 0; i < l.count; i++) key[i] = l.items[i]!;
    this.keys[h] = key;
    this.ids[h] = id;
    this.depths[h] = l.depth;
  }
}
