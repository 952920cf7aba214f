import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddrMap } from '../../extension/src/core/analysis/addrMap';

// The replays' address table (core/analysis/addrMap.ts) against a JS Map, op by op.
function check(keys: readonly number[], ops: number, seed: number): void {
  const m = new AddrMap(4);
  const ref = new Map<number, number>();
  let x = seed;
  const rnd = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % n;
  for (let i = 0; i < ops; i++) {
    const k = keys[rnd(keys.length)]!;
    const op = rnd(10);
    if (op < 5) {
      m.set(k, i);
      ref.set(k, i);
    } else if (op < 8) assert.equal(m.delete(k), ref.delete(k), `delete ${k} at op ${i}`);
    assert.equal(m.get(k), ref.get(k) ?? -1, `get ${k} at op ${i}`);
    assert.equal(m.has(k), ref.has(k), `has ${k} at op ${i}`);
    assert.equal(m.size, ref.size, `size at op ${i}`);
  }
  for (const [k, v] of ref) assert.equal(m.get(k), v, `get ${k} at the end`);
  const seen: number[] = [];
  m.forEachKey((k) => seen.push(k));
  assert.deepEqual(new Set(seen), new Set(ref.keys()));
  assert.equal(seen.length, ref.size);
}

describe('AddrMap', () => {
  it('agrees with a Map on real-looking addresses, reused and freed', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => 139_637_976_727_552 + 512 * ((i * 7919) % 5000));
    check(keys, 200_000, 1);
  });
  it('agrees with a Map on keys a Map tells apart or not: -0, NaN, fractions, past 2**53, negative', () => {
    const keys = [
      0,
      -0,
      Number.NaN,
      0.5,
      1.5,
      -1,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 60,
      -(2 ** 60),
      1e300,
      Number.POSITIVE_INFINITY,
      2 ** 31,
      2 ** 32,
      2 ** 32 + 1,
    ];
    check(keys, 20_000, 2);
  });
  it('agrees with a Map when every key shares its low bits (runs of collisions, deletes inside them)', () => {
    const keys = Array.from({ length: 400 }, (_, i) => i * 2 ** 40);
    check(keys, 100_000, 3);
  });
});
