import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { describe, it } from 'node:test';
import { parsePickle } from '../../extension/src/core/pickle/read';
import { RowRuns } from '../../extension/src/core/pickle/rowRuns';
import type { PyValue } from '../../extension/src/core/pickle/values';
import { parseSnapshot } from '../../extension/src/core/snapshot/load';
import { rowOf } from '../../extension/src/core/snapshot/model';
import { SnapshotBuilder } from '../../extension/src/core/snapshot/normalize';
import { pythonBytes } from './helpers';

// Random values rich in lists of consecutive ints (runs that go on, break, are floats, start at -0.0,
// pass 1,000 items so APPENDS comes twice, sit in dicts, tuples, lists, the top level, or are
// referenced twice through the memo), each pickled with protocols 2 to 5, length-prefixed.
const CASES = `
import pickle, random, struct, sys
rnd = random.Random(int(sys.argv[1]))
def ints():
    k = rnd.choice([0, 1, 2, 5, 40, 1200])
    start = rnd.choice([0, 1, 7, 2**31 - 2, 2**31, -3, 2**53])
    xs = list(range(start, start + k))
    r = rnd.random()
    if r < 0.2 and xs: xs[rnd.randrange(len(xs))] += rnd.choice([1, -1, 0.5])
    elif r < 0.3: xs = [float(x) for x in xs]
    elif r < 0.35: xs = [-0.0] + xs
    elif r < 0.4: xs = xs + ["s"]
    return xs
def value(d):
    c = rnd.randrange(6) if d > 0 else 0
    if c == 0: return ints()
    if c == 1: return [value(d - 1) for _ in range(rnd.randrange(4))]
    if c == 2: return {f"k{i}": value(d - 1) for i in range(rnd.randrange(4))}
    if c == 3: return tuple(value(d - 1) for _ in range(rnd.randrange(4)))
    if c == 4:
        x = ints()
        return [x, {"again": x}, x] if rnd.random() < 0.5 else [x, x]
    return rnd.choice([None, 3, "N/A", 2.5])
out = sys.stdout.buffer
for i in range(400):
    b = pickle.dumps(value(3), protocol=2 + i % 4)
    out.write(struct.pack("<I", len(b)) + b)
`;

function cases(seed: number): Uint8Array[] {
  const buf = pythonBytes(CASES, [String(seed)]);
  const out: Uint8Array[] = [];
  for (let at = 0; at < buf.length; ) {
    const n = buf.readUInt32LE(at);
    out.push(buf.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

const empties = (v: PyValue): number =>
  Array.isArray(v)
    ? v.length === 0
      ? 1
      : v.reduce<number>((n, x) => n + empties(x), 0)
    : v && typeof v === 'object' && !(v instanceof Uint8Array)
      ? Object.values(v).reduce<number>((n, x) => n + empties(x as PyValue), 0)
      : 0;

describe('lists of consecutive ints kept as runs while read', () => {
  it('give back exactly the value read without runs, wherever they sit, once taken', () => {
    let asRuns = 0;
    for (const bytes of [...cases(1), ...cases(2)]) {
      const plain = parsePickle(bytes).value;
      const runs = new RowRuns();
      const v = parsePickle(bytes, { hooks: { runs } }).value;
      // Some lists are still runs here (empty arrays): the case exercised them.
      if (empties(v) > empties(plain)) asRuns++;
      runs.take(undefined, []);
      assert.deepStrictEqual(v, plain);
    }
    assert.ok(asRuns > 50, `only ${asRuns} of 800 values kept a run`);
  });

  it('count toward the container limit by their items', () => {
    const bytes = pythonBytes('import pickle, sys; sys.stdout.buffer.write(pickle.dumps({"x": list(range(2000))}, protocol=4))');
    assert.throws(() => parsePickle(bytes, { hooks: { runs: new RowRuns() }, limits: { containerItems: 1500 } }), /1500 items/);
    assert.ok(isDeepStrictEqual(parsePickle(bytes, { hooks: { runs: new RowRuns() } }).value, { x: [...Array(2000).keys()] }));
  });
});

// A snapshot of two devices' traces, each a list of entries: written once each, or the same list twice.
const SNAPSHOT = `
import pickle, sys
def entries(base, tag):
    return [{"action": "alloc", "addr": base + i * 512, "size": 512, "stream": 0, "time_us": i, "frames": [], "user_metadata": f"{tag}{i}"} for i in range(1500)]
a, b = entries(1 << 20, "a"), entries(1 << 30, "b")
traces = [a, a] if sys.argv[1] == "twice" else [a, b]
sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": traces}, protocol=4))
`;

describe('device traces read as runs of rows', () => {
  it('are the trace lists themselves: no array of row ids, and the traces are views over the rows', () => {
    const bytes = pythonBytes(SNAPSHOT, ['apart']);
    const b = new SnapshotBuilder(bytes.length);
    const value = parsePickle(bytes, { hooks: b.hooks() }).value as { device_traces: PyValue[][] };
    assert.deepEqual(
      value.device_traces.map((l) => [l.length, b.runs.lengthOf(l)]),
      [
        [0, 1500],
        [0, 1500],
      ],
    );
    const s = parseSnapshot(bytes);
    assert.deepEqual(
      [...s.traces.values()].map((t) => [t.device, t.firstRow, t.length, t.rows, t.addr[1]]),
      [
        [0, 0, 1500, undefined, (1 << 20) + 512],
        [1, 1500, 1500, undefined, (1 << 30) + 512],
      ],
    );
    // Each entry's own row: its metadata (kept by row) is its own.
    const meta = (d: number, i: number) => s.columns.userMetadata.get(rowOf(s.traces.get(d)!, i));
    assert.deepEqual([meta(0, 0), meta(0, 1499), meta(1, 0), meta(1, 7), meta(1, 1499)], ['a0', 'a1499', 'b0', 'b7', 'b1499']);
  });

  it('a list of ints where frames belong is read as one: the hooks see its items', () => {
    const bytes = pythonBytes(
      'import pickle, sys; sys.stdout.buffer.write(pickle.dumps({"device_traces": [[{"action": "alloc", "addr": 4096, "size": 512, "frames": [0, 1, 2]}]]}, protocol=4))',
    );
    assert.throws(() => parseSnapshot(bytes), /a stack frame is an int, not a dict/);
  });

  it('one list referenced twice is still read twice: the second reference repeats entries', () => {
    assert.throws(() => parseSnapshot(pythonBytes(SNAPSHOT, ['twice'])), /device_traces\[1\]\[0\] repeats an earlier trace entry/);
  });
});
