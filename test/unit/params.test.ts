// Crediting live blocks to named parameters (analysis/params.ts) on real captures, against records
// written here as the agent writes them (params.py's lines), whose addresses, sizes and times come
// from the raw trace through a replay of its own (a dozen lines below), not from the engine's.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { creditParams } from '../../extension/src/core/analysis/params';
import { renderParamsCredit } from '../../extension/src/core/analysis/paramsText';
import { isSnapshotError } from '../../extension/src/core/errors';
import { parseParamRecords, readParamsFile } from '../../extension/src/core/run/paramsFile';
import { Action } from '../../extension/src/core/snapshot/actions';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { DeviceTrace, Snapshot } from '../../extension/src/core/snapshot/model';
import { traceOf } from '../../extension/src/core/snapshot/model';
import { OWN_SNAPSHOTS, ROOT } from './helpers';

interface Life {
  addr: number;
  size: number;
  /** Times in µs; NaN: before the trace (alloc) or never (free requested). */
  alloc: number;
  freeReq: number;
  allocIdx: number;
  freeIdx: number;
}

/** Every allocation's lifetime, straight from the trace (alloc, free_requested, free_completed). */
function lifetimes(t: DeviceTrace): Life[] {
  const out: Life[] = [];
  const open = new Map<number, Life>();
  for (let i = 0; i < t.length; i++) {
    const a = t.action[i];
    const addr = t.addr[i]!;
    if (a === Action.Alloc) {
      const l = { addr, size: t.size[i]!, alloc: t.timeUs[i]!, freeReq: NaN, allocIdx: i, freeIdx: Infinity };
      open.set(addr, l);
      out.push(l);
    } else if (a === Action.FreeRequested || a === Action.FreeCompleted || a === Action.Free) {
      const l = open.get(addr);
      if (!l) continue;
      if (Number.isNaN(l.freeReq)) l.freeReq = t.timeUs[i]!;
      if (a !== Action.FreeRequested) {
        l.freeIdx = i;
        open.delete(addr);
      }
    }
  }
  return out;
}

const line = (o: Record<string, unknown>) => o;
let nextName = 0;
/** One optimizer's lines: names, one full map observed at `t`, then `seen` at each of `more`. */
function records(entries: { addr: number; size: number; kind?: string; device?: number; name?: string }[], t: number, more: number[] = []) {
  const names = entries.map((e) => e.name ?? `blocks.${nextName++}.weight`);
  const set = entries.map((e, i) => [i, e.kind ?? 'g', e.device ?? 0, e.addr, e.size]);
  return [
    line({ type: 'names', t, opt: 0, optimizer: 'AdamW', names, unnamed: [] }),
    line({ type: 'map', t, opt: 0, full: true, set, gone: [] }),
    ...more.map((m) => line({ type: 'seen', t: m, opt: 0 })),
  ];
}

describe('crediting live blocks to named parameters (a real capture)', () => {
  let s: Snapshot;
  let a: DeviceAnalysis;
  let lives: Life[];
  let peak: number;
  let T: number;
  before(async () => {
    s = await loadSnapshotFile(join(ROOT, 'test', 'fixtures', 'modules', 'nanogpt_eager', 'snapshot-peak.pickle.gz'));
    a = analyzeDevice(s, 0);
    const t = traceOf(s, 0);
    lives = lifetimes(t);
    peak = a.replay.peak.index;
    T = t.timeUs[peak]!;
  });
  const liveAtPeak = () => lives.filter((l) => l.allocIdx <= peak && l.freeIdx > peak && l.alloc <= T && !(l.freeReq <= T));

  it('credits blocks seen at their address, with their size, while alive; the rest is other memory', () => {
    const picked = liveAtPeak()
      .sort((x, y) => y.size - x.size)
      .slice(0, 30);
    const kinds = ['p', 'g', 's:exp_avg'];
    const rec = parseParamRecords(
      records(
        picked.map((l, i) => ({ addr: l.addr, size: l.size, kind: kinds[i % 3]!, name: `h.${i % 5}.mlp.w${i}` })),
        T,
      ),
    );
    const c = creditParams(a, peak, rec);
    const want = picked.reduce((x, l) => x + l.size, 0);
    assert.equal(c.creditedBytes, want);
    assert.equal(c.liveBytes, a.replay.peak.requestedBytes);
    assert.equal(c.tensors.length, 30);
    const kindBytes = (k: number) => picked.filter((_, i) => i % 3 === k).reduce((x, l) => x + l.size, 0);
    assert.deepEqual(
      [c.byKind.parameter.bytes, c.byKind.gradient.bytes, c.byKind.optimizer_state.bytes],
      [kindBytes(0), kindBytes(1), kindBytes(2)],
    );
    assert.deepEqual(c.modules.map((m) => m.module).sort(), ['h.0.mlp', 'h.1.mlp', 'h.2.mlp', 'h.3.mlp', 'h.4.mlp']);
    assert.equal(
      c.modules.reduce((x, m) => x + m.bytes, 0),
      want,
    );
    const shown = renderParamsCredit(c, 3);
    assert.match(shown[2]!, /^ +\d[\d.]* (B|KiB|MiB|GiB)  h\.\d\.mlp\.w\d+ \((parameter|gradient|optimizer state exp_avg)\)$/);
    assert.ok(shown.some((l) => /^  … 27 more/.test(l)));
  });

  it('never credits a later block at a reused address, a wrong size, another device, or a tensor seen after its free', () => {
    // An address whose earlier allocation was freed before its later one (live at the peak) began.
    const later = liveAtPeak().find((l) =>
      lives.some((e) => e.addr === l.addr && e.allocIdx < l.allocIdx && e.freeReq < l.alloc && e.alloc < e.freeReq),
    );
    assert.ok(later, 'the capture reuses an address');
    const earlier = lives.filter((e) => e.addr === later.addr && e.allocIdx < later.allocIdx).at(-1)!;
    const during = (earlier.alloc + earlier.freeReq) / 2;
    const cases = [
      { rec: records([{ addr: later.addr, size: later.size }], during), why: 'seen while the earlier block held the address' },
      { rec: records([{ addr: later.addr, size: later.size + 512 }], T), why: 'another size' },
      { rec: records([{ addr: later.addr, size: later.size, device: 1 }], T), why: 'another device' },
    ];
    const gone = lives.find((l) => l.allocIdx <= peak && l.freeIdx < a.replay.n && l.freeIdx > peak && l.freeReq > T);
    if (gone) cases.push({ rec: records([{ addr: gone.addr, size: gone.size }], gone.freeReq + 1), why: 'seen only after its free' });
    for (const { rec, why } of cases) assert.equal(creditParams(a, peak, parseParamRecords(rec)).creditedBytes, 0, why);
    // Seen both during the earlier block's life and the later one's: the later block takes the later observation.
    const both = records([{ addr: later.addr, size: later.size }], during, [T]);
    assert.equal(creditParams(a, peak, parseParamRecords(both)).creditedBytes, later.size);
  });

  it('of two tensors seen at one block, takes the first seen after its allocation; a tensor gone from the map ends', () => {
    const l = liveAtPeak().sort((x, y) => y.size - x.size)[0]!;
    const lines = [
      line({ type: 'names', t: l.alloc, opt: 0, optimizer: 'SGD', names: ['a.weight', 'b.weight'], unnamed: [1] }),
      line({ type: 'map', t: l.alloc - 1, opt: 0, full: true, set: [[1, 'p', 0, l.addr, l.size]], gone: [] }),
      line({ type: 'map', t: T - 1, opt: 0, full: false, set: [[0, 's:momentum_buffer', 0, l.addr, l.size]], gone: [[1, 'p']] }),
      line({ type: 'seen', t: T, opt: 0 }),
      line({ type: 'map', t: T + 1, opt: 0, full: false, set: [[1, 'g', 0, l.addr, l.size]], gone: [[0, 's:momentum_buffer']] }),
      line({ type: 'nonsense' }),
    ];
    const rec = parseParamRecords(lines);
    assert.equal(rec.skipped, 1);
    const c = creditParams(a, peak, rec);
    assert.deepEqual(
      c.tensors.map((x) => [x.name, x.kind, x.key, x.bytes]),
      [['a.weight', 'optimizer_state', 'momentum_buffer', l.size]],
    );
    // The first observation came before the block: the unnamed parameter is never credited.
    assert.ok(!c.tensors.some((x) => !x.named));
  });
});

describe('blocks allocated before the trace (a capture whose ring buffer overflowed)', () => {
  it('are matched to the observation nearest the trace, and a freed one never to a later observation', async () => {
    const s = await loadSnapshotFile(join(OWN_SNAPSHOTS, 'ring_overflow.pickle'));
    const a = analyzeDevice(s, 0);
    const t = traceOf(s, 0);
    const peak = a.replay.peak.index;
    // Ghosts: live in the final state's segments, never allocated in the trace.
    const allocated = new Set(lifetimes(t).map((l) => l.addr));
    const freedInTrace = new Set<number>();
    for (let i = 0; i < t.length; i++) if (t.action[i] === Action.FreeCompleted && !allocated.has(t.addr[i]!)) freedInTrace.add(t.addr[i]!);
    const ghosts = s.segments.flatMap((g) => g.blocks).filter((b) => b.state === 'active_allocated' && !allocated.has(b.address));
    assert.ok(ghosts.length > 0);
    const start = t.timeUs[0]!;
    const rec = records(
      ghosts.map((b) => ({ addr: b.address, size: b.requestedSize })),
      start - 5_000_000,
      [start - 1000, t.timeUs[t.length - 1]! + 1_000_000],
    );
    const c = creditParams(a, peak, parseParamRecords(rec));
    assert.equal(
      c.creditedBytes,
      ghosts.reduce((x, b) => x + b.requestedSize, 0),
    );
    // A block freed early in the trace, allocated before it: observations after its free never count.
    const freed = [...freedInTrace][0]!;
    const i = [...t.addr].findIndex((x, j) => x === freed && t.action[j] === Action.FreeCompleted);
    const size = t.size[i]!;
    const after = parseParamRecords(records([{ addr: freed, size }], t.timeUs[i]! + 1));
    assert.equal(creditParams(a, i - 1, after).creditedBytes, 0);
    const beforeIt = parseParamRecords(records([{ addr: freed, size }], start - 1));
    assert.equal(creditParams(a, i - 1, beforeIt).creditedBytes, size);
  });
});

describe('params.jsonl', () => {
  it('is refused with a typed error when it is not a regular file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-params-'));
    assert.throws(
      () => readParamsFile(dir),
      (e) => isSnapshotError(e) && e.code === 'io',
    );
  });
});
