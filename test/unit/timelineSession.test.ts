import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { isFromTimeline } from '../../extension/src/core/timeline/protocol';
import { TimelineSession } from '../../extension/src/core/timeline/session';
import { OWN_SNAPSHOTS } from './helpers';

const B64 = join(OWN_SNAPSHOTS, 'e2e_train_b64.pickle');

/** The device-0 trace as CPython's pickle reads it: action, addr, size, frames. */
function pythonTrace(path: string): [string, number, number, [string, number, string][]][] {
  const py = `
import json, pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
t = s["device_traces"][0]
print(json.dumps([[e["action"], e["addr"], e["size"], [[f["filename"], f["line"], f["name"]] for f in e.get("frames", [])]] for e in t]))`;
  return JSON.parse(execFileSync('python3', ['-c', py, path], { encoding: 'utf8', maxBuffer: 1 << 28 })) as never;
}

describe('timeline session (the host side of the channel)', () => {
  it('describes a block as CPython reads its alloc event: address, size, every frame', async () => {
    const s = await loadSnapshotFile(B64);
    const a = analyzeDevice(s, defaultDevice(s)!);
    const session = new TimelineSession(3, {
      snapshot: s,
      analysis: a,
      title: 'b64',
      path: B64,
      instant: { index: a.replay.peak.index, label: 'at peak' },
    });
    const trace = pythonTrace(B64);
    let checked = 0;
    for (let id = 0; id < a.replay.elements.count; id++) {
      const m = session.element(id);
      assert.ok(m && m.type === 'element' && m.session === 3);
      const info = m.info;
      if (info.alloc < 0) continue;
      const [action, addr, size, frames] = trace[info.alloc]!;
      assert.equal(action, 'alloc');
      assert.equal(info.address, addr);
      assert.equal(info.size, size);
      assert.deepEqual(
        info.stack.map((f) => [f.file, f.line, f.name]),
        frames,
      );
      if (info.free < a.replay.n) assert.match(trace[info.free]![0], /^free_(requested|completed)$/);
      checked++;
    }
    assert.ok(checked > 100, `${checked} blocks checked`);
    assert.equal(session.element(a.replay.elements.count), undefined);
    assert.equal(session.element(-1), undefined);
  });

  it('says where the peak and the instant are, and moves the instant', async () => {
    const s = await loadSnapshotFile(B64);
    const a = analyzeDevice(s, 0);
    const session = new TimelineSession(1, {
      snapshot: s,
      analysis: a,
      title: 'b64',
      path: B64,
      instant: { index: 10, label: 'at event #10' },
    });
    const init = session.init();
    const trace = pythonTrace(B64);
    assert.equal(init.n, trace.length);
    assert.equal(init.instant.index, 10);
    assert.ok(init.markers.some((k) => k.kind === 'peak' && k.index === init.peak.index));
    const moved = session.instant(200, 'at event #200');
    assert.deepEqual(moved.type === 'instant' && [moved.index, moved.label], [200, 'at event #200']);
    assert.equal(session.init().instant.index, 200);
  });

  it('accepts only well-formed messages from the page', () => {
    const good = [
      { type: 'ready' },
      { type: 'selectDevice' },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: 1 } },
      {
        type: 'view',
        session: 1,
        seq: 3,
        request: { keying: 'category', x: 'time', from: 1e15, to: 1e15 + 9, columns: 1024, minBandBytes: Number.MAX_VALUE },
      },
      { type: 'element', session: 1, id: 0 },
      { type: 'openFrame', file: '/a.py', line: 3 },
      { type: 'setInstant', session: 1, index: -1 },
      { type: 'segments', session: 1, index: 4 },
    ];
    for (const m of good) assert.ok(isFromTimeline(m), JSON.stringify(m));
    const bad: unknown[] = [
      null,
      'ready',
      { type: 'nope' },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 10, to: 10, columns: 5, minBandBytes: 1 } },
      { type: 'view', session: 1, seq: 2, request: { keying: 'colour', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: 1 } },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 0.5, minBandBytes: 1 } },
      { type: 'view', session: 1.5, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: 1 } },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: Number.NaN } },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: 0 } },
      { type: 'view', session: 1, seq: 2, request: { keying: 'line', x: 'index', from: 0, to: 10, columns: 5, minBandBytes: null } },
      { type: 'element', session: 1, id: -3 },
      { type: 'openFrame', file: 3, line: 3 },
      { type: 'setInstant', session: 1, index: Number.NaN },
      { type: 'segments', session: '1', index: 4 },
    ];
    for (const m of bad) assert.equal(isFromTimeline(m), false, JSON.stringify(m));
  });
});
