/**
 * Addresses to non-negative numbers, for the replays' per-event lookups: a JS Map keyed by
 * addresses past 2**31 (heap numbers) was most of a replay's time. Open addressing, linear probing,
 * deletion by shifting back (no tombstones); keys compare as a Map's do (SameValueZero), hashed from
 * their bits with a seed drawn at run time, so a file cannot be written to collide it.
 */
export class AddrMap {
  private keys: Float64Array;
  private vals: Float64Array;
  private hashes: Int32Array;
  private used: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = 16) {
    let n = 16;
    while (n < 2 * capacity) n *= 2;
    this.keys = new Float64Array(n);
    this.vals = new Float64Array(n);
    this.hashes = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
  }

  /** The value of `k`, or -1. */
  get(k: number): number {
    const s = this.find(k);
    return s < 0 ? -1 : this.vals[s]!;
  }

  has(k: number): boolean {
    return this.find(k) >= 0;
  }

  /** Sets `k` to `v` (≥ 0). */
  set(k: number, v: number): void {
    const h = hashOf(k);
    let s = h & this.mask;
    for (; this.used[s] === 1; s = (s + 1) & this.mask)
      if (this.hashes[s] === h && same(this.keys[s]!, k)) {
        this.vals[s] = v;
        return;
      }
    this.used[s] = 1;
    this.keys[s] = k;
    this.vals[s] = v;
    this.hashes[s] = h;
    if (++this.size * 2 > this.mask) this.grow();
  }

  delete(k: number): boolean {
    let i = this.find(k);
    if (i < 0) return false;
    const { mask, used, hashes } = this;
    // Shift back each later entry of the run that may sit at i: its home is not in (i, j].
    for (let j = (i + 1) & mask; used[j] === 1; j = (j + 1) & mask) {
      const home = hashes[j]! & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        this.keys[i] = this.keys[j]!;
        this.vals[i] = this.vals[j]!;
        hashes[i] = hashes[j]!;
        i = j;
      }
    }
    used[i] = 0;
    this.size--;
    return true;
  }

  /** Each key, in no particular order. */
  forEachKey(f: (k: number) => void): void {
    for (let s = 0; s <= this.mask; s++) if (this.used[s] === 1) f(this.keys[s]!);
  }

  private find(k: number): number {
    const h = hashOf(k);
    for (let s = h & this.mask; this.used[s] === 1; s = (s + 1) & this.mask) if (this.hashes[s] === h && same(this.keys[s]!, k)) return s;
    return -1;
  }

  private grow(): void {
    const { keys, vals, hashes, used } = this;
    const n = 2 * used.length;
    this.keys = new Float64Array(n);
    this.vals = new Float64Array(n);
    this.hashes = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
    for (let s = 0; s < used.length; s++) {
      if (used[s] !== 1) continue;
      let t = hashes[s]! & this.mask;
      while (this.used[t] === 1) t = (t + 1) & this.mask;
      this.used[t] = 1;
      this.keys[t] = keys[s]!;
      this.vals[t] = vals[s]!;
      this.hashes[t] = hashes[s]!;
    }
  }
}

const same = (a: number, b: number): boolean => a === b || (a !== a && b !== b);

const bits = new Float64Array(1);
const words = new Int32Array(bits.buffer);
const SEED = (Math.random() * 2 ** 32) | 0;

function hashOf(k: number): number {
  // +0 for -0, one NaN for all: equal keys, equal bits.
  bits[0] = k !== k ? Number.NaN : k + 0;
  let h = Math.imul(words[0]! ^ SEED, 0x9e3779b1) ^ Math.imul(words[1]! + SEED, 0x85ebca6b);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h;
}
