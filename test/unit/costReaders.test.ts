import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autogradNode } from '../../extension/src/core/analysis/backwardStacks';
import { isSnapshotError } from '../../extension/src/core/errors';
import { resolveLimits } from '../../extension/src/core/limits';
import { decodeLong } from '../../extension/src/core/pickle/decode';
import { PickleMachine } from '../../extension/src/core/pickle/machine';
import { FrameTable } from '../../extension/src/core/snapshot/frames';
import { StackTable } from '../../extension/src/core/snapshot/stacks';

// Issue 39, the readers: each fast path must give what the slow one gave, on real and random inputs.

/** A small deterministic generator (xorshift32), so failures reproduce. */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('autograd node names', () => {
  // The pattern the linear scan replaces: the reference on short names.
  const NODE = /(?:torch::autograd::generated::)?(\w*Backward\w*)::apply/;
  const reference = (s: string): string => NODE.exec(s)?.[1] ?? '';

  it('names the node of real C++ frames, and nothing else', () => {
    for (const [name, node] of [
      ['torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)', 'MmBackward0'],
      ['torch::autograd::generated::ConvolutionBackward0::apply', 'ConvolutionBackward0'],
      ['torch::autograd::CppNode<CheckpointFunctionBackward>::apply', ''], // a template, not a generated node
      ['torch::autograd::Engine::evaluate_function(...)', ''],
      ['at::native::mm_out', ''],
      ['MmBackward0', ''],
    ]) {
      assert.equal(autogradNode(name!), node, name);
      assert.equal(reference(name!), node, name);
    }
  });

  it('agrees with the pattern on random names built from its pieces', () => {
    const pieces = ['Backward', '::apply', '::', 'torch::autograd::generated::', 'Mm', '0', '_', ':', ' ', '<', 'é', 'a', 'ward', 'Back'];
    const next = rng(39);
    for (let i = 0; i < 20_000; i++) {
      let s = '';
      const parts = 1 + Math.floor(next() * 12);
      for (let j = 0; j < parts; j++) s += pieces[Math.floor(next() * pieces.length)];
      assert.equal(autogradNode(s), reference(s), JSON.stringify(s));
    }
  });

  it('reads a 1 MB "BackwardBackward…" name in linear time', () => {
    const t0 = performance.now();
    assert.equal(autogradNode('Backward'.repeat(1 << 17)), '');
    assert.equal(autogradNode(`${'Backward'.repeat(1 << 17)}::apply`), 'Backward'.repeat(1 << 17));
    assert.equal(autogradNode('::apply'.repeat(1 << 17)), '');
    assert.ok(performance.now() - t0 < 2000, `${(performance.now() - t0).toFixed(0)} ms`);
  });
});

/** FNV-1a over ids with the table's mixing step, from state h: what StackTable.seal computes. */
function mix(h: number, ids: readonly number[]): number {
  for (const id of ids) {
    h = Math.imul(h ^ id, 16777619);
    h ^= h >>> 15;
  }
  return h;
}

/**
 * 2^k stacks of 3k frame ids below 4096 whose hashes under `seed` are all equal: k blocks of two
 * triples, each pair reaching the same state (the attack of test/cost/gen_readers.py, here knowing
 * the seed, which a file cannot).
 */
function collidingStacks(seed: number, k: number): number[][] {
  let state = seed ^ (3 * k);
  const blocks: [number[], number[]][] = [];
  for (let b = 0; b < k; b++) {
    const near = new Map<number, number>();
    for (let y = 0; y < 4096; y++) near.set(mix(state, [0, y]) >>> 12, y);
    let found: [number[], number[]] | undefined;
    for (let x = 1; x < 4096 && !found; x++) {
      for (let y = 0; y < 4096 && !found; y++) {
        const y1 = near.get(mix(state, [x, y]) >>> 12);
        if (y1 !== undefined) {
          const d = (mix(state, [0, y1]) ^ mix(state, [x, y])) >>> 0;
          found = [
            [0, y1, 0],
            [x, y, d],
          ];
        }
      }
    }
    assert.ok(found, 'a colliding pair of blocks');
    assert.equal(mix(state, found[0]), mix(state, found[1]));
    blocks.push(found);
    state = mix(state, found[0]);
  }
  return Array.from({ length: 2 ** k }, (_, i) => blocks.flatMap(([a, b], j) => ((i >> j) & 1 ? b : a)));
}

describe('stacks', () => {
  const frames = Array.from({ length: 4096 }, (_, i) => ({ filename: '??', line: 0, name: `f${i}` }));
  const table = (): StackTable => {
    const t = new StackTable(new FrameTable());
    t.intern(frames); // frame ids 0..4095 in order
    return t;
  };

  it('keeps colliding stacks apart and finds each again', () => {
    const t = table();
    const seed = (t as unknown as { seed: number }).seed;
    const stacks = collidingStacks(seed, 10);
    const ids = stacks.map((s) => t.intern(s.map((i) => frames[i]!)));
    assert.equal(new Set(ids).size, stacks.length, 'one id per distinct stack');
    stacks.forEach((s, i) => {
      assert.deepEqual([...t.get(ids[i]!)], s);
      assert.equal(t.intern(s.map((f) => frames[f]!)), ids[i], 'the same id when met again');
    });
    // A stack of the same length that does not collide is a new one, and found again too.
    const other = stacks[0]!.map((x) => (x + 1) % 4096);
    const o = t.intern(other.map((i) => frames[i]!));
    assert.ok(!ids.includes(o));
    assert.equal(t.intern(other.map((i) => frames[i]!)), o);
  });

  it('numbers stacks in order of first appearance, whatever the seed', () => {
    const next = rng(7);
    const lists = Array.from({ length: 3000 }, () => Array.from({ length: 1 + Math.floor(next() * 6) }, () => Math.floor(next() * 8)));
    const a = table();
    const b = table();
    (b as unknown as { seed: number }).seed = 12345;
    const first = new Map<string, number>();
    for (const l of lists) {
      const x = a.intern(l.map((i) => frames[i]!));
      assert.equal(b.intern(l.map((i) => frames[i]!)), x);
      const key = l.join();
      if (!first.has(key)) first.set(key, x);
      assert.equal(first.get(key), x);
    }
    assert.equal(new Set(first.values()).size, first.size);
  });
});

describe('long integers', () => {
  /** The former decoder (hex digits into one BigInt), as the reference. */
  function reference(buf: Uint8Array, n: number): number | bigint {
    if (n === 0) return 0;
    if (n <= 8) {
      const negative = buf[n - 1]! >= 0x80;
      const flip = negative ? 0xff : 0;
      let value = 0;
      for (let i = n - 1; i >= 0; i--) value = value * 256 + (buf[i]! ^ flip);
      if (negative) value = -(value + 1);
      if (Number.isSafeInteger(value)) return value;
    }
    let hex = '';
    for (let i = n - 1; i >= 0; i--) hex += buf[i]!.toString(16).padStart(2, '0');
    let big = BigInt(`0x${hex}`);
    if (buf[n - 1]! >= 0x80) big -= 1n << BigInt(8 * n);
    return big;
  }

  it('decodes every length up to 64 bytes exactly', () => {
    const next = rng(3);
    for (let i = 0; i < 5000; i++) {
      const n = Math.floor(next() * 65);
      const buf = Uint8Array.from({ length: n }, () => {
        const r = next();
        return r < 0.2 ? 0 : r < 0.4 ? 0xff : Math.floor(next() * 256);
      });
      assert.equal(decodeLong(buf, 0, n), reference(buf, n), `${n} bytes: ${[...buf]}`);
    }
  });

  /** PROTO 4, then `count` × (LONG1 of `n` bytes, POP), then None and STOP. */
  function longs(count: number, n: number): Uint8Array {
    const one = [0x8a, n, ...Array.from({ length: n }, (_, i) => (i === n - 1 ? 0x7f : 0x5a)), 0x30];
    const out = new Uint8Array(2 + count * one.length + 2);
    out.set([0x80, 4]);
    for (let i = 0; i < count; i++) out.set(one, 2 + i * one.length);
    out.set([0x4e, 0x2e], out.length - 2);
    return out;
  }
  const run = (bytes: Uint8Array): unknown => {
    // A 1,000-byte "file": the budget is then its allowance alone, 64 M of work.
    const m = new PickleMachine(resolveLimits(), {}, 1000);
    m.feed(bytes);
    try {
      return m.run();
    } catch (e) {
      return e;
    }
  };

  it('counts the decoding of big integers in the work budget', () => {
    // 300,000 BigInts: 600,000 opcodes, far below the allowance, but 77 M of work by their bytes.
    const e = run(longs(300_000, 64));
    assert.ok(isSnapshotError(e) && e.code === 'limit' && e.message.includes('work-per-byte'), String(e));
    // As many 8-byte integers, read as doubles, are ordinary work.
    assert.equal(run(longs(300_000, 6)), true);
  });
});
