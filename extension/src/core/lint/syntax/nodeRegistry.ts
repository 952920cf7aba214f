/**
 * Nodes by subtree slot (a wasm32 address, 8-byte aligned, never 0), so that a node is made once
 * however it is reached. An open-addressing table in typed arrays rather than a Map: a 5,000-line
 * file makes ~14,000 nodes, and a Map's entries were copied by every young-generation collection
 * during a lint (a typed array's large backing store is outside the JS heap).
 */
export class NodeRegistry<T> {
  private keys = new Uint32Array(1024);
  private vals = new Int32Array(1024);
  private readonly list: T[] = [];

  private at(slot: number): number {
    const mask = this.keys.length - 1;
    let i = Math.imul(slot >>> 3, 0x9e3779b1) & mask;
    while (this.keys[i] !== 0 && this.keys[i] !== slot) i = (i + 1) & mask;
    return i;
  }

  get(slot: number): T | undefined {
    const i = this.at(slot);
    return this.keys[i] === slot ? this.list[this.vals[i]!] : undefined;
  }

  /** `slot` is not 0 (the table's empty mark): slots are addresses of tree memory. */
  set(slot: number, node: T): void {
    let i = this.at(slot);
    if (this.keys[i] === slot) {
      this.list[this.vals[i]!] = node;
      return;
    }
    // Half full at most, so probes stay short.
    if ((this.list.length + 1) * 2 > this.keys.length) {
      const { keys, vals } = this;
      this.keys = new Uint32Array(keys.length * 2);
      this.vals = new Int32Array(keys.length * 2);
      for (let k = 0; k < keys.length; k++) {
        if (!keys[k]) continue;
        const j = this.at(keys[k]!);
        this.keys[j] = keys[k]!;
        this.vals[j] = vals[k]!;
      }
      i = this.at(slot);
    }
    this.keys[i] = slot;
    this.vals[i] = this.list.length;
    this.list.push(node);
  }
}
