import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { isSnapshotError } from '../../extension/src/core/errors';
import type { SnapshotErrorCode } from '../../extension/src/core/errors';
import { parsePickle } from '../../extension/src/core/pickle/read';
import { PyInert } from '../../extension/src/core/pickle/values';
import { parseSnapshot } from '../../extension/src/core/snapshot/load';
import { mutate } from '../fuzz/mutate';
import { fixture, pythonBytes } from './helpers';

/** Parses and analyzes every device, as a user's open would. */
function openAll(bytes: Uint8Array): void {
  const s = parseSnapshot(bytes);
  for (const d of s.devices) analyzeDevice(s, d);
}

function expectTyped(bytes: Uint8Array, codes?: SnapshotErrorCode[]): string {
  try {
    openAll(bytes);
  } catch (e) {
    assert.ok(isSnapshotError(e), `untyped error: ${(e as Error)?.stack ?? String(e)}`);
    if (codes) assert.ok(codes.includes(e.code), `code ${e.code} not in ${codes.join(',')}: ${e.message}`);
    return e.message;
  }
  assert.fail('expected a SnapshotError');
}

/** A tiny deterministic PRNG (mulberry32): failures are reproducible from the seed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('hostile and broken input', () => {
  it('never executes GLOBAL/REDUCE: a pickle calling os.system stays inert and is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-evil-'));
    const marker = join(dir, 'pwned');
    const evil = pythonBytes(
      `import os, pickle, sys
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[1],))
sys.stdout.buffer.write(pickle.dumps(Evil(), protocol=int(sys.argv[2])))`,
      [marker, '4'],
    );
    const v = parsePickle(evil).value;
    assert.ok(v instanceof PyInert);
    assert.equal(v.kind, 'call');
    assert.match(v.qualname, /^(posix|os|nt)\.system$/);
    const msg = expectTyped(evil, ['wrong-shape']);
    assert.match(msg, /not a PyTorch memory snapshot: top level is a call to (posix|os|nt)\.system/);
    // Also through protocol 2's GLOBAL opcode, and nested where a segment should be.
    const evil2 = pythonBytes(
      `import os, pickle, sys
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[1],))
sys.stdout.buffer.write(pickle.dumps({"segments": [Evil()], "device_traces": []}, protocol=2))`,
      [marker],
    );
    assert.match(expectTyped(evil2, ['wrong-shape']), /segment 0 is a call to/);
    assert.equal(existsSync(marker), false);
    rmSync(dir, { recursive: true });
  });

  it('survives a 10-level billion-laughs bomb (10^10 logical items) without expanding it', () => {
    const bomb = pythonBytes(`import pickle, sys
x = ["lol"] * 10
for _ in range(9):
    x = [x] * 10
sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": x}, protocol=4))`);
    assert.ok(bomb.length < 2000, `bomb is ${bomb.length} bytes`);
    const msg = expectTyped(bomb, ['wrong-shape']);
    assert.match(msg, /device_traces\[0\]\[0\] is a list, not a trace entry/);
    // Shaped like a real trace: one list of entries shared by 100k devices is refused, not replayed 100k times.
    const bomb2 = pythonBytes(`import pickle, sys
t = [{"action": "alloc", "addr": i * 512, "size": 512, "stream": 0} for i in range(1000)]
sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [t] * 100000}, protocol=4))`);
    assert.match(expectTyped(bomb2, ['wrong-shape', 'limit']), /repeats an earlier trace entry|limit/);
    const bomb3 = pythonBytes(`import pickle, sys
seg = {"device": 0, "address": 0, "total_size": 512, "blocks": [{"size": 512, "state": "inactive"}]}
sys.stdout.buffer.write(pickle.dumps({"segments": [seg] * 100000, "device_traces": []}, protocol=4))`);
    assert.match(expectTyped(bomb3, ['wrong-shape']), /repeats an earlier segment/);
  });

  it('refuses nesting deeper than the limit, and recursive structures', () => {
    const deep = pythonBytes(`import pickle, sys
x = []
for _ in range(200):
    x = [x]
sys.stdout.buffer.write(pickle.dumps(x, protocol=4))`);
    assert.match(expectTyped(deep, ['limit']), /nest deeper than 64/);
    const cyc = pythonBytes(`import pickle, sys
x = []
x.append(x)
sys.stdout.buffer.write(pickle.dumps({"segments": x}, protocol=4))`);
    assert.match(expectTyped(cyc, ['corrupt']), /inserted into itself|shared/);
    const cyc2 = pythonBytes(`import pickle, sys
a = {}; b = [a]; a["b"] = b
sys.stdout.buffer.write(pickle.dumps(a, protocol=4))`);
    expectTyped(cyc2, ['corrupt']);
  });

  it('refuses oversized declarations before allocating them', () => {
    // BINUNICODE8 claiming 2^40 bytes, then nothing.
    const huge = Uint8Array.from([0x80, 0x04, 0x8d, 0, 0, 0, 0, 0, 1, 0, 0]);
    assert.match(expectTyped(huge, ['limit']), /exceeds/);
    const memo = Uint8Array.from([0x80, 0x04, 0x4e, 0x72, 0xff, 0xff, 0xff, 0x7f, 0x2e]);
    assert.match(expectTyped(memo, ['limit']), /memo index/);
    const tight = pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps(list(range(1000)), protocol=4))');
    assert.throws(
      () => parsePickle(tight, { limits: { containerItems: 999 } }),
      (e) => isSnapshotError(e) && e.code === 'limit',
    );
    assert.throws(
      () => parsePickle(tight, { limits: { cells: 500 } }),
      (e) => isSnapshotError(e) && e.code === 'limit',
    );
  });

  it('names what a non-snapshot file is', () => {
    const cases: [Uint8Array, SnapshotErrorCode, RegExp][] = [
      [new Uint8Array(0), 'not-pickle', /empty/],
      [new TextEncoder().encode('hello world'), 'not-pickle', /not a pickle/],
      [new TextEncoder().encode('{"segments": []}'), 'unsupported', /JSON/],
      [Uint8Array.from([0x50, 0x4b, 3, 4, 0, 0]), 'not-pickle', /zip archive/],
      [Uint8Array.from([0x1f, 0x8b, 8, 0]), 'not-pickle', /gzip/],
      [pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps([1], protocol=0))'), 'unsupported', /protocol 0\/1/],
      [Uint8Array.from([0x80, 0x07, 0x4e, 0x2e]), 'unsupported', /protocol 7/],
      [Uint8Array.from([0x80, 0x04, 0x50, 0x78, 0x0a, 0x2e]), 'unsupported', /PERSID/],
      [Uint8Array.from([0x80, 0x04, 0xfe]), 'corrupt', /invalid pickle opcode 0xfe/],
      [Uint8Array.from([0x80, 0x04, 0x61, 0x2e]), 'corrupt', /underflow|stack/],
      [pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps("hi"))'), 'wrong-shape', /top level is a str/],
      [
        pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps({"a": 1}))'),
        'wrong-shape',
        /without 'segments' or 'device_traces' \(its keys: a\)/,
      ],
      [
        pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps({"segments": 5}))'),
        'wrong-shape',
        /'segments' is an int, not a list/,
      ],
      // Dict and list subclasses are written as a call, then SETITEMS/APPENDS on its result.
      [
        pythonBytes('import pickle,sys,collections; sys.stdout.buffer.write(pickle.dumps(collections.OrderedDict(a=1)))'),
        'unsupported',
        /SETITEMS on a call to collections\.OrderedDict/,
      ],
      [
        pythonBytes('import pickle,sys,collections; sys.stdout.buffer.write(pickle.dumps(collections.defaultdict(list, a=[1])))'),
        'unsupported',
        /defaultdict.*dict subclass/,
      ],
      [
        pythonBytes('import pickle,sys\nclass L(list): pass\nsys.stdout.buffer.write(pickle.dumps(L([1])))'),
        'unsupported',
        /APPEND on an instance of __main__\.L/,
      ],
      [
        pythonBytes(
          'import pickle,sys; sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": "x", "size": 1}]]}))',
        ),
        'wrong-shape',
        /device_traces\[0\]\[0\] is a malformed trace entry/,
      ],
    ];
    for (const [bytes, code, re] of cases) assert.match(expectTyped(bytes, [code]), re);
  });

  it('reports a truncation at every 1/100th of a real snapshot', () => {
    const bytes = readFileSync(fixture('mlp_train').path);
    for (let k = 0; k < 100; k++) {
      const cut = Math.floor((bytes.length * k) / 100);
      const msg = expectTyped(bytes.subarray(0, cut), k === 0 ? ['not-pickle'] : ['truncated']);
      if (k > 0) assert.match(msg, new RegExp(`ends after ${cut} bytes`));
    }
  });

  it('stays typed on the inputs the 1M-mutation fuzz run once crashed on (memo index reuse)', () => {
    // (fixture, seed) of each crash; mutate() regenerates the exact bytes.
    const crashes: [string, number][] = [
      ['snap_mempool', -861503079],
      ['snap_expandable', -1282968921],
      ['private_pool_oom', -2116944727],
      ['private_pool_oom', 1307474597],
      ['private_pool_oom', -666550938],
      ['snap_mempool', -987388000],
      ['snap_mempool', 1543151934],
    ];
    for (const [name, seed] of crashes) expectTyped(mutate(readFileSync(fixture(name).path), seed).bytes);
    // The shape behind them: a memo index stored twice, retargeting a live reference.
    const reuse = Uint8Array.from([0x80, 0x04, 0x7d, 0x71, 0x00, 0x8c, 0x01, 0x78, 0x71, 0x00, 0x2e]);
    assert.match(expectTyped(reuse, ['corrupt']), /memo entry 0 is stored twice/);
  });

  it('only ever throws typed errors on random byte flips of real snapshots', () => {
    const next = rng(2026);
    for (const name of ['mlp_train', 'oom_plain', 'expandable_train', 'private_pool_oom']) {
      const original = readFileSync(fixture(name).path);
      for (let k = 0; k < 400; k++) {
        const bytes = Uint8Array.from(original);
        const flips = 1 + Math.floor(next() * 8);
        for (let j = 0; j < flips; j++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        try {
          openAll(bytes);
        } catch (e) {
          assert.ok(isSnapshotError(e), `${name} mutation ${k}: untyped ${(e as Error)?.stack ?? String(e)}`);
        }
      }
    }
  });
});
