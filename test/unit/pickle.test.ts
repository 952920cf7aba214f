import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { isSnapshotError } from '../../extension/src/core/errors';
import { readPickleFile } from '../../extension/src/core/pickle/file';
import { parsePickle, readPickleStream } from '../../extension/src/core/pickle/read';
import type { PyValue } from '../../extension/src/core/pickle/values';
import { fixtures, python, pythonBytes } from './helpers';

/** Our value in the JSON form the Python reference prints. */
function plain(v: PyValue): unknown {
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (typeof v === 'bigint') return { bigint: v.toString() };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x as PyValue)]));
  return v;
}

const tmp = mkdtempSync(join(tmpdir(), 'headroom-pickle-'));

/** A structure exercising every value type a snapshot (or a hostile file) can hold. */
const SAMPLE = `
import pickle, sys
shared = {"name": "f", "filename": "/x.py", "line": 3}
frames = [shared, shared, {"name": "g", "filename": "/y.py", "line": 0}]
big = list(range(3000))
obj = {
  "ints": [0, 1, 255, 256, 65535, 65536, -1, -129, 2**31 - 1, -2**31, 2**31, 2**47 + 5, 1795301744509408,
           -(2**53) + 1, 2**53 + 1, 2**63 - 1, -(2**63), 2**64, 2**100, -(2**100)],
  "floats": [0.0, -1.5, 1e300, 0.1],
  "strs": ["", "N/A", "é ☃ 🎉", "x" * 300, "y" * 70000],
  "bytes": [b"", b"\\x00\\xff" * 200] if int(sys.argv[1]) >= 3 else [],
  "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)],
  "bools": [True, False, None],
  "shared": [frames, frames],
  "big": big,
  "set": {1, 2, 3} if int(sys.argv[1]) >= 4 else [],
  "frozen": frozenset({4}) if int(sys.argv[1]) >= 4 else [],
  "nested": {"a": {"b": {"c": [[[]]]}}},
  7: "int key",
}
sys.stdout.buffer.write(pickle.dumps(obj, protocol=int(sys.argv[1])))
`;

describe('safe pickle reader', () => {
  for (const proto of [2, 3, 4, 5]) {
    it(`reads protocol ${proto} exactly as CPython does`, () => {
      const bytes = pythonBytes(SAMPLE, [String(proto)]);
      const path = join(tmp, `sample${proto}.pickle`);
      writeFileSync(path, bytes);
      const ours = parsePickle(bytes);
      assert.equal(ours.protocol, proto);
      assert.deepEqual(plain(ours.value), JSON.parse(python('pickle_to_json.py', [path])));
    });
  }

  it('keeps shared references shared (memo), without copying them', () => {
    const v = parsePickle(pythonBytes(SAMPLE, ['4'])).value as Record<string, PyValue[]>;
    const [a, b] = v.shared as PyValue[][];
    assert.equal(a, b);
    assert.equal(a![0], a![1]);
  });

  it('crosses FRAME boundaries (protocol 4 splits large pickles into 64 KiB frames)', () => {
    const bytes = pythonBytes(SAMPLE, ['4']);
    let frames = 0;
    for (let i = 0; i + 8 < bytes.length; i++) if (bytes[i] === 0x95 && bytes.readBigUInt64LE(i + 1) < 1n << 20n) frames++;
    assert.ok(frames >= 2, `expected several FRAME opcodes, saw ${frames}`);
    assert.ok(parsePickle(bytes).value);
  });

  for (const f of fixtures()) {
    it(`reads ${f.name} exactly as CPython does`, () => {
      const ours = parsePickle(readFileSync(f.path));
      assert.deepEqual(plain(ours.value), JSON.parse(python('pickle_to_json.py', [f.path])));
    });
  }

  it('gives the same result whatever the chunking of the input', async () => {
    const bytes = readFileSync(fixtures().find((f) => f.name === 'oom_plain')!.path);
    const whole = plain(parsePickle(bytes).value);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      }
      assert.deepEqual(plain((await readPickleStream(chunks())).value), whole, `chunks of ${size}`);
    }
  });

  it('reports progress up to the file size, and reads gzip-compressed files', async () => {
    const f = fixtures().find((x) => x.name === 'ring_overflow')!;
    const seen: number[] = [];
    const direct = await readPickleFile(f.path, { onProgress: (read, total) => (seen.push(read), assert.ok(total)) });
    assert.ok(seen.length >= 1);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );
    assert.equal(seen.at(-1), readFileSync(f.path).length);
    const gz = join(tmp, 'ring.pickle.gz');
    writeFileSync(gz, gzipSync(readFileSync(f.path)));
    assert.deepEqual(plain((await readPickleFile(gz)).value), plain(direct.value));
  });

  it('stops with a typed error when cancelled', async () => {
    const f = fixtures().find((x) => x.name === 'transformer_amp_ckpt')!;
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(readPickleFile(f.path, { signal: abort.signal }), (e) => isSnapshotError(e) && e.code === 'cancelled');
  });

  it('stops mid-file when cancelled from the progress callback', async () => {
    const big = join(tmp, 'big.pickle');
    writeFileSync(
      big,
      pythonBytes('import pickle,sys; sys.stdout.buffer.write(pickle.dumps([{"a": i, "b": "x"*50} for i in range(100000)], protocol=4))'),
    );
    const abort = new AbortController();
    let calls = 0;
    await assert.rejects(
      readPickleFile(big, { signal: abort.signal, onProgress: () => (++calls === 1 ? abort.abort() : undefined) }),
      (e) => isSnapshotError(e) && e.code === 'cancelled',
    );
    assert.equal(calls, 1);
  });
});
