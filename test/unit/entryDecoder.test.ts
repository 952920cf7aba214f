import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadSnapshotStream, parseSnapshot } from '../../extension/src/core/snapshot/load';
import type { LoadOptions } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { RowSink } from '../../extension/src/core/snapshot/rowSink';
import { OWN_SNAPSHOTS, pythonBytes } from './helpers';

// Issue 40: trace entries are decoded straight from the bytes (core/pickle/entries.ts) unless
// anything about them is unusual, when the VM runs them. Fed one byte at a time the decoder never
// has an entry whole, so every entry goes through the VM: both must give the same snapshot, or
// the same error, on real files and on entries shaped to trip the decoder.

async function* bytewise(b: Uint8Array): AsyncIterable<Uint8Array> {
  for (let i = 0; i < b.length; i++) yield b.subarray(i, i + 1);
}

/** What a snapshot holds, comparable: the columns, the stacks as frames, the segments. */
function shape(s: Snapshot): unknown {
  const c = s.columns;
  const stacks = [...new Set(c.stack)].map((id) => Array.from(s.stacks.get(id), (f) => `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`));
  return {
    columns: [c.action, c.addr, c.size, c.stream, c.timeUs, c.stack].map((a) => [...a]),
    maps: [c.streams, [...c.userMetadata], [...c.compileContext], [...c.otherActions]],
    stacks,
    segments: s.segments,
    devices: s.devices,
  };
}

async function outcome(load: () => Promise<Snapshot> | Snapshot): Promise<unknown> {
  try {
    return shape(await load());
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function same(bytes: Uint8Array, what: string, limits?: LoadOptions['limits']): Promise<void> {
  const fast = await outcome(() => parseSnapshot(bytes, { limits }));
  const vm = await outcome(() => loadSnapshotStream(bytewise(bytes), { limits }));
  assert.deepEqual(fast, vm, what);
}

/** A snapshot made by Python whose trace is `entries` (a Python expression), as pickle.dumps(protocol) writes it. */
function made(entries: string, protocol = 4): Uint8Array {
  const code = `import pickle, sys\nf = [{"filename": "/w/train.py", "line": 3, "name": "step"}]\nentries = ${entries}\nsys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [entries]}, protocol=${protocol}))`;
  return pythonBytes(code);
}

const base = 'dict(action="alloc", addr=4096 * i, size=512, stream=0, time_us=1000 + i, frames=f)';

/** How many of a file's trace entries the decoder took (the rest the VM read): a fast path that bails stays correct but slow. */
function decoded(bytes: Uint8Array): { rows: number; decoded: number } {
  let n = 0;
  const entry = RowSink.prototype.entry;
  RowSink.prototype.entry = function (this: RowSink, ...a: Parameters<RowSink['entry']>) {
    n++;
    return entry.apply(this, a);
  };
  try {
    return { rows: parseSnapshot(bytes).columns.action.length, decoded: n };
  } finally {
    RowSink.prototype.entry = entry;
  }
}

describe('trace entries decoded without the VM', () => {
  // Real captures write a new frames list of known frames in most entries (entryList.ts).
  for (const name of ['ring_overflow.pickle', 'transformer_amp_ckpt.pickle', 'leaky_demo.pickle']) {
    it(`take nearly every entry of a real file (${name})`, () => {
      const { rows, decoded: n } = decoded(readFileSync(join(OWN_SNAPSHOTS, name)));
      assert.ok(n >= 0.98 * rows, `${n} of ${rows} entries decoded`);
    });
  }
  it('take entries with one-frame and empty frames lists', () => {
    const shape = `[dict(action="alloc", frames=[fr[i % 3]] if i % 4 else [], addr=i, size=512) for fr in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(60)]`;
    const { rows, decoded: n } = decoded(made(shape));
    // Only the entries that write a frame dict for the first time go to the VM.
    assert.ok(n >= rows - 5, `${n} of ${rows} entries decoded`);
  });

  for (const name of ['e2e_train_b64.pickle', 'ring_overflow.pickle', 'transformer_amp_ckpt.pickle', 'leaky_demo.pickle']) {
    it(`give the VM's snapshot on a real file (${name})`, async () => {
      await same(readFileSync(join(OWN_SNAPSHOTS, name)), name);
    });
  }

  // Not from pickle.dump: a dict whose 'frames' key comes twice, a list first (the VM keeps the last value).
  it("give the VM's snapshot when a frames list is followed by another 'frames' value", async () => {
    const code = `import pickle, sys\nfr = [dict(filename="/w/t.py", line=k, name="f") for k in range(3)]\nentries = [dict(action="alloc", addr=i, size=512, frames=[fr[0], fr[i % 3]], zzzzzz=0) for i in range(30)]\nb = pickle.dumps({"segments": [], "device_traces": [entries]}, protocol=4)\nsys.stdout.buffer.write(b.replace(b"zzzzzz", b"frames"))`;
    await same(pythonBytes(code), 'two frames keys');
  });

  // A list found in the cache (core/pickle/listCache.ts) keeps the depth it had when made: the limit falls where the VM's does.
  it("give the VM's snapshot or error under every depth limit, frames lists found again", async () => {
    // The frames are written before the trace (an earlier key), shallow and deep, so that the decoder reads every
    // entry; a list is read again from the memo inside an entry and after the trace.
    const code = `import pickle, sys\nfr = [dict(filename="/w/t.py", line=k, name="f", extra=[[[k]]] * k) for k in range(3)]\nentries = [dict(action="alloc", addr=i, size=512, frames=[fr[0], fr[(i // 5) % 3]]) for i in range(40)]\nentries.insert(30, dict(action="alloc", addr=1, size=512, frames=entries[25]["frames"]))\nsys.stdout.buffer.write(pickle.dumps({"segments": [], "frames": fr, "device_traces": [entries], "again": entries[25]["frames"]}, protocol=4))`;
    for (let depth = 2; depth <= 9; depth++) await same(pythonBytes(code), `depth limit ${depth}`, { depth });
  });

  const shapes: [string, string][] = [
    ['plain entries, frames shared', `[${base} for i in range(300)]`],
    [
      'a value memoized and read back in the same entry',
      `[dict(action="alloc", addr=i, size=512, user_metadata="alloc", compile_context="alloc") for i in range(50)]`,
    ],
    ['a metadata string too long for the decoder', `[dict(${base.slice(5, -1)}, user_metadata="x" * 40 + str(i)) for i in range(50)]`],
    ['an address past 2**64 (a bigint)', `[dict(action="alloc", addr=2**70 + i, size=512, frames=f) for i in range(20)]`],
    ['a negative size', `[dict(action="alloc", addr=i, size=-5, frames=f) for i in range(20)]`],
    ['action not first', `[dict(size=512, action="alloc", addr=i, frames=f) for i in range(20)]`],
    ['a float time', `[dict(action="alloc", addr=i, size=512, time_us=1.5, frames=f) for i in range(20)]`],
    ['a key that is a number', `[{"action": "alloc", "addr": i, "size": 512, 7: 1} for i in range(20)]`],
    ['an unknown action and a None stream', `[dict(action="reshard", addr=i, size=512, stream=None, frames=f) for i in range(20)]`],
    ['fresh frame lists in every entry', `[dict(action="alloc", addr=i, size=512, frames=[dict(x) for x in f]) for i in range(50)]`],
    ['an entry that holds itself', `[e for e in [dict(action="alloc", addr=1, size=512)] if not e.update(me=e)]`],
    // What the rows' sink (core/snapshot/rowSink.ts) checks itself or hands to TraceRows.add:
    [
      'every known action, metadata and compile context set, keys it does not read',
      `[dict(action=["alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "snapshot", "segment_map"][i % 7], addr=2**40 + 512 * i, size=512 * (i % 5), stream=i % 3, time_us=1000 + i, frames=f, user_metadata="step%d" % (i % 4), compile_context="ctx" if i % 2 else "N/A", device=0, pool=i) for i in range(70)]`,
    ],
    [
      'an oom reading device_free',
      `[dict(action="oom", addr=0, device_free=2**33 + i, size=2**30, stream=0, time_us=5 + i, frames=f) for i in range(20)]`,
    ],
    ['an oom whose device_free is None', `[dict(action="oom", addr=64 + i, device_free=None, size=2**30, frames=f) for i in range(20)]`],
    [
      'None for addr, time, frames and the strings',
      `[dict(action="alloc", addr=None, size=512, time_us=None, frames=None, user_metadata=None, compile_context=None) for i in range(20)]`,
    ],
    [
      'metadata in every other entry only',
      `[dict(action="alloc", addr=i, size=512, frames=f, **({"user_metadata": "m%d" % i, "compile_context": "c"} if i % 2 else {})) for i in range(20)]`,
    ],
    // Hundreds of keys read twice each: their memo indices meet the common keys' in the key cache.
    [
      'many keys it does not read',
      `[dict(action="alloc", addr=i, size=512, frames=f, **{ks[i // 2]: 1}) for ks in [["k%d" % n for n in range(350)]] for i in range(700)]`,
    ],
    // Frames lists as a real capture writes them (core/pickle/entryList.ts): new lists of frame dicts already read.
    [
      'new lists of known frames',
      `[dict(action="alloc", addr=i, size=512, frames=[fr[0], fr[i % 3], fr[(i + 1) % 3]]) for fr in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(60)]`,
    ],
    [
      'one-frame lists (APPEND) and empty ones',
      `[dict(action="alloc", frames=[fr[i % 3]] if i % 4 else [], addr=i, size=512) for fr in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(60)]`,
    ],
    [
      'one list shared by every entry',
      `[dict(action="alloc", addr=i, size=512, frames=l) for l in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(60)]`,
    ],
    [
      'a list longer than a pickle batch',
      `[dict(action="alloc", addr=i, size=512, frames=[fr[k % 3] for k in range(1500)]) for fr in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(8)]`,
    ],
    // Frames lists made before are found by their items' indices (core/pickle/listCache.ts): lists that
    // share a prefix, the same items in another order, and more lists than the cache holds, each seen twice.
    [
      'thousands of distinct lists, each written twice',
      `[dict(action="alloc", addr=i, size=512, frames=[fr[k] for k in ls[i % len(ls)]]) for fr in [[dict(filename="/w/t%d.py" % (k % 7), line=k, name="f") for k in range(60)]] for ls in [[(a, b) for a in range(60) for b in range(60) if a != b] + [(a, b, c) for a in range(9) for b in range(9) for c in range(9)] + [(a,) for a in range(60)]] for i in range(2 * len(ls))]`,
    ],
    [
      'lists of frames that nest',
      `[dict(action="alloc", addr=i, size=512, frames=[fr[i % 2], fr[2]]) for fr in [[dict(filename="/w/t.py", line=k, name="f", extra=[[k]] * (k + 1)) for k in range(3)]] for i in range(40)]`,
    ],
    ['a list of strings', `[dict(action="alloc", addr=i, size=512, frames=[s, s]) for s in ["x" * 20] for i in range(20)]`],
    [
      'a list under another key',
      `[dict(action="alloc", addr=i, size=512, frames=[fr[0]], forward_frames=[fr[1]], user_metadata=[fr[0]]) for fr in [[dict(filename="/w/t.py", line=k, name="f") for k in range(3)]] for i in range(20)]`,
    ],
    [
      'the frames list read again in the same entry',
      `[dict(action="alloc", addr=i, size=512, frames=l, forward_frames=l) for fr in [[dict(filename="/w/t.py", line=3, name="f")]] for i in range(20) for l in [[fr[0], fr[0]]]]`,
    ],
    [
      'an earlier trace entry as a frame',
      `[e for es in [[]] for i in range(20) for e in [dict(action="alloc", addr=i, size=512, frames=es[-1:] * 2)] if not es.append(e)]`,
    ],
    ['frames a number past the stacks', `[dict(action="alloc", addr=i, size=512, frames=3) for i in range(20)]`],
    ['a negative address', `[dict(action="alloc", addr=-4096 * (i + 1), size=512, frames=f) for i in range(20)]`],
    ['an address of 2**60 (past 2**53, below 2**64)', `[dict(action="alloc", addr=2**60 + i, size=512, frames=f) for i in range(20)]`],
    ['a stream that is a string', `[dict(action="alloc", addr=i, size=512, stream="s", frames=f) for i in range(20)]`],
  ];
  for (const [what, entries] of shapes) {
    it(`give the VM's snapshot or error: ${what}`, async () => {
      await same(made(entries), what);
      await same(made(entries, 2), `${what} (protocol 2)`);
    });
  }
});
