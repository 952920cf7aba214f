import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { smallLong } from '../../extension/src/core/pickle/decode';

// LONG1's 1–8 bytes as a double (NaN unless safe), against the two's-complement value BigInt computes.
function reference(b: Uint8Array): number {
  let big = 0n;
  for (let i = b.length - 1; i >= 0; i--) big = (big << 8n) | BigInt(b[i]!);
  const v = BigInt.asIntN(8 * b.length, big);
  return v >= -(2n ** 53n - 1n) && v <= 2n ** 53n - 1n ? Number(v) : NaN;
}

function bytesOf(v: bigint, n: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = BigInt.asUintN(8 * n, v);
  for (let i = 0; i < n; i++, x >>= 8n) b[i] = Number(x & 0xffn);
  return b;
}

describe('smallLong', () => {
  it('reads the edges of each width as BigInt does', () => {
    const edges = [
      0n,
      1n,
      -1n,
      127n,
      128n,
      -128n,
      2n ** 31n,
      2n ** 32n - 1n,
      2n ** 48n + 5n,
      2n ** 53n - 1n,
      2n ** 53n,
      -(2n ** 53n) + 1n,
      -(2n ** 53n),
    ];
    for (let n = 1; n <= 8; n++)
      for (const e of [...edges, 2n ** BigInt(8 * n - 1) - 1n, -(2n ** BigInt(8 * n - 1))]) {
        const b = bytesOf(e, n);
        assert.equal(smallLong(b, 0, n), reference(b), `${e} in ${n} bytes`);
      }
  });

  it('reads random bytes as BigInt does, at an offset', () => {
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 0xff;
    for (let k = 0; k < 20000; k++) {
      const n = 1 + (k % 8);
      const buf = new Uint8Array(n + 3);
      for (let i = 0; i < buf.length; i++) buf[i] = rnd();
      // High bytes near the safe limit half the time (0x00–0x3f, either sign).
      if (k % 2) buf[2 + n] = rnd() & 0x3f;
      assert.equal(smallLong(buf, 3, n), reference(buf.subarray(3, 3 + n)), `bytes ${[...buf.subarray(3, 3 + n)]}`);
    }
  });
});
