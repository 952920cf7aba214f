import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice, resolveAt } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { liveAt, reservedAt } from '../../extension/src/core/analysis/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { lod } from '../../extension/src/core/timeline/lod';
import type { LodFrame, LodRequest } from '../../extension/src/core/timeline/lod';
import { buildTimeline } from '../../extension/src/core/timeline/model';
import type { TimelineModel } from '../../extension/src/core/timeline/modelTypes';
import { fixtures } from './helpers';

/** Deterministic pseudo-random windows (xorshift), so a failure names a reproducible window. */
function* windows(n: number, count: number, seed = 7): Generator<[number, number]> {
  let x = seed;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  yield [0, n];
  for (let z = 1; z < count; z++) {
    // Zoom levels from the whole trace down to a few events per column.
    const span = Math.max(2, Math.floor(n / 4 ** Math.floor(rnd() * 6)));
    const from = Math.floor(rnd() * Math.max(1, n - span));
    yield [from, from + span];
  }
}

function columnSums(f: LodFrame, c: number): { total: number; count: number } {
  let total = 0;
  let count = 0;
  for (let b = f.bandOff[c]!; b < f.bandOff[c + 1]!; b++) {
    total += f.bandBytes[b]!;
    count += f.bandCount[b]!;
  }
  return { total, count };
}

function check(m: TimelineModel, q: LodRequest): void {
  const r = m.analysis.replay;
  const f = lod(m, q);
  const req = (i: number) => (i >= 0 ? r.requested[i]! : r.start.requestedBytes);
  for (let c = 0; c < f.columns; c++) {
    const a = f.start[c]!;
    const b = f.start[c + 1]!;
    // The column shows its own maximum, at an event inside it (or the state carried into it).
    let max = -Infinity;
    for (let i = a; i < b; i++) max = Math.max(max, r.requested[i]!);
    if (a < b) {
      assert.ok(f.sample[c]! >= a && f.sample[c]! < b, `column ${c}: sample ${f.sample[c]} outside [${a}, ${b})`);
      assert.equal(f.requested[c], max);
    } else assert.equal(f.sample[c], a - 1);
    assert.equal(f.requested[c], req(f.sample[c]!));
    // The bands add up to the replay's total at that event, block for block.
    const { total, count } = columnSums(f, c);
    assert.equal(total, req(f.sample[c]!), `column ${c} (event ${f.sample[c]}): bands ${total} vs replay ${req(f.sample[c]!)}`);
    assert.equal(count, liveAt(r.elements, f.sample[c]!).length);
    assert.equal(f.reserved[c], reservedAt(r, f.sample[c]!));
    // Allocated as everywhere: the allocator replay's where exact, else the estimate.
    assert.equal(f.allocated[c], resolveAt(m.analysis, f.sample[c]!).allocatedBytes);
    // A band of its own for every live block at least minBandBytes, and only for those.
    for (let k = f.bandOff[c]!; k < f.bandOff[c + 1]!; k++) {
      const el = f.band[k]!;
      if (el < 0) continue;
      assert.ok(r.elements.size[el]! >= q.minBandBytes);
      assert.ok(r.elements.alloc[el]! <= f.sample[c]! && r.elements.free[el]! > f.sample[c]!);
    }
  }
}

describe('timeline level of detail', () => {
  for (const fx of fixtures()) {
    it(`${fx.name}: at every zoom level, each column's bands add up to the replay's requested bytes at its event`, async () => {
      const s = await loadSnapshotFile(fx.path);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const m = buildTimeline(s, a);
      const r = a.replay;
      for (const [from, to] of windows(m.n, 12)) {
        for (const columns of [1, 97, 800]) {
          for (const keying of ['line', 'category'] as const) {
            check(m, { keying, x: 'index', from, to, columns, minBandBytes: Math.max(1, r.peak.requestedBytes / 300) });
          }
        }
      }
      // Zoomed out, some column holds the peak.
      const whole = lod(m, { keying: 'line', x: 'index', from: 0, to: m.n, columns: 400, minBandBytes: 1 << 20 });
      assert.equal(Math.max(...whole.requested), r.peak.requestedBytes);
    });
  }

  it('in time mode, columns cover equal time spans and an empty column carries the state before it', async () => {
    const fx = fixtures().find((f) => f.name === 'transformer_amp_ckpt')!;
    const s = await loadSnapshotFile(fx.path);
    const a = analyzeDevice(s, defaultDevice(s)!);
    const m = buildTimeline(s, a);
    assert.ok(m.hasTime);
    const t = a.replay.timeUs;
    const q: LodRequest = { keying: 'category', x: 'time', from: t[0]!, to: t[m.n - 1]! + 1, columns: 5000, minBandBytes: 1 << 16 };
    check(m, q);
    const f = lod(m, q);
    const w = (q.to - q.from) / 5000;
    for (let c = 0; c < f.columns; c++) {
      for (let i = f.start[c]!; i < f.start[c + 1]!; i++) assert.ok(t[i]! >= q.from + c * w && t[i]! < q.from + (c + 1) * w + 1e-6);
    }
    assert.ok(
      [...f.start].some((v, c) => c < f.columns && v === f.start[c + 1]),
      'some column is empty at this resolution',
    );
  });

  it('line bands match the attribution of the same instant, line for line and bucket for bucket', async () => {
    for (const fx of fixtures()) {
      const s = await loadSnapshotFile(fx.path);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const m = buildTimeline(s, a);
      const f = lod(m, { keying: 'line', x: 'index', from: 0, to: m.n, columns: 50, minBandBytes: Infinity });
      for (const c of [0, 17, 49]) {
        const attr = attributeAt(s, a, resolveAt(a, f.sample[c]!));
        const keys = m.keyings.line.keys;
        const got = new Map<string, number>();
        for (let b = f.bandOff[c]!; b < f.bandOff[c + 1]!; b++) {
          const k = keys[f.bandKey[b]!]!;
          const name = k.file !== undefined ? `${k.file}:${k.line}` : k.label;
          got.set(name, (got.get(name) ?? 0) + f.bandBytes[b]!);
        }
        const want = new Map<string, number>();
        for (const l of attr.lines) if (l.selfBytes > 0) want.set(`${l.file}:${l.line}`, l.selfBytes);
        for (const b of attr.buckets)
          want.set(keys.find((k) => k.file === undefined && k.label.startsWith(labelStart(b.kind)))!.label, b.bytes);
        assert.deepEqual(new Map([...got].sort()), new Map([...want].sort()), `${fx.name}, column ${c}`);
      }
    }
  });
});

function labelStart(kind: string): string {
  return { before_recording: 'allocated before', backward: 'autograd backward', library: 'library code', no_stack: 'no stack' }[kind]!;
}
