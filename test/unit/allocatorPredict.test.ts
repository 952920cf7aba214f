import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AllocConfError, applyAllocConf } from '../../extension/src/core/allocator/confString';
import { configFrom } from '../../extension/src/core/allocator/config';
import { predictAllocator } from '../../extension/src/core/allocator/predict';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { predictedRemedies } from '../../extension/src/core/diagnose/predicted';
import type { Remedy } from '../../extension/src/core/diagnose/remedies';
import { FinalSegs } from '../../extension/src/core/allocator/pools';
import { Action } from '../../extension/src/core/snapshot/actions';
import { traceOf } from '../../extension/src/core/snapshot/model';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT, SHARED_SNAPSHOTS } from './helpers';

// Predictions under other allocator settings. With the run's own settings the model must give the
// run's own reserved peak; under other settings it is checked against real reruns on an H100
// (test/gpu/capture/frag_rerun.py: the same allocations under the same cap, per setting).
const SNAP = join(ROOT, 'test', 'fixtures', 'snapshots');
const MiB = 2 ** 20;

describe('allocator predictions', () => {
  it('with the recorded settings, the recorded reserved peak, on every capture without an OOM', async () => {
    let n = 0;
    for (const path of [
      ...readdirSync(SNAP).map((f) => join(SNAP, f)),
      ...readdirSync(SHARED_SNAPSHOTS).map((f) => join(SHARED_SNAPSHOTS, f)),
    ].filter((f) => f.endsWith('.pickle'))) {
      const s = await loadSnapshotFile(path);
      const a = analyzeDevice(s, 0);
      const p = predictAllocator(s, 0, configFrom(s.allocatorSettings));
      if (!p.supported || a.ooms.length) continue;
      assert.equal(p.reservedPeak, a.replay.reservedPeak.bytes, path);
      n++;
    }
    assert.ok(n >= 8, String(n));
  });

  it('the fragmentation OOM under its cap: the OOM again by default, none with max_split_size_mb:64 and the reserved bytes the H100 rerun measured', async () => {
    const s = await loadSnapshotFile(join(SNAP, 'frag_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const cap = (1536 + 100) * MiB; // frag_oom.py's set_per_process_memory_fraction
    const plain = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun.json'), 'utf8')) as { ok: boolean };
    const split = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun_max_split.json'), 'utf8')) as {
      ok: boolean;
      reserved: number;
      alloc_conf: string;
    };
    const base = predictAllocator(s, 0, configFrom(s.allocatorSettings), { bytes: cap, cap: true });
    assert.ok(base.supported);
    assert.equal(plain.ok, false);
    assert.deepEqual(
      base.ooms.map((o) => o.index),
      [a.ooms[0]!.index],
    );
    const p = predictAllocator(s, 0, applyAllocConf(configFrom(s.allocatorSettings), split.alloc_conf), { bytes: cap, cap: true });
    assert.ok(p.supported);
    assert.equal(split.ok, true);
    assert.deepEqual(p.ooms, []);
    assert.deepEqual(p.avoided, [a.ooms[0]!.index]);
    assert.equal(p.reservedAt.get(a.ooms[0]!.index), split.reserved);
    // expandable_segments:True: the free pages inside the holes are unmapped, the request mapped on top.
    const exp = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun_expandable.json'), 'utf8')) as {
      ok: boolean;
      reserved: number;
      alloc_conf: string;
    };
    const e = predictAllocator(s, 0, applyAllocConf(configFrom(s.allocatorSettings), exp.alloc_conf), { bytes: cap, cap: true });
    assert.ok(e.supported);
    assert.equal(exp.ok, true);
    assert.deepEqual([e.ooms, e.avoided], [[], [a.ooms[0]!.index]]);
    assert.equal(e.reservedAt.get(a.ooms[0]!.index), exp.reserved);
  });

  it("the doctor's remedy predictions stay within their budget of replayed events, and say so when it runs out", async () => {
    const s = await loadSnapshotFile(join(SNAP, 'frag_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const remedy: Remedy = {
      id: 'expandable-segments',
      title: 'Expandable segments',
      change: 'set it',
      effect: 'less fragmentation',
      allocConf: { expandable_segments: 'True' },
    };
    const [full] = predictedRemedies(s, a, a.ooms[0]!, [remedy]);
    assert.match(full!.effect, /predicted on this run: the OOM at event #\d+ does not happen/);
    const [short] = predictedRemedies(s, a, a.ooms[0]!, [remedy], a.replay.n);
    assert.match(short!.effect, /not predicted here: the replays would pass \d+ events; headroom whatif predicts it/);
  });

  it("the dump's streams are the trace's: a segment the trace allocated has the same stream in both", async () => {
    let checked = 0;
    for (const path of [
      ...readdirSync(join(ROOT, 'test', 'fixtures', 'whatif'))
        .filter((f) => f.endsWith('.pickle.gz'))
        .map((f) => join(ROOT, 'test', 'fixtures', 'whatif', f)),
    ]) {
      const s = await loadSnapshotFile(path);
      const t = traceOf(s, 0);
      const finals = new FinalSegs(s, 0);
      // The last segment allocated at each address (an address freed and taken again is the dump's in its last life).
      const last = new Set<number>();
      for (let i = t.length - 1; i >= 0; i--) {
        if (t.action[i] !== Action.SegmentAlloc || last.has(t.addr[i]!)) continue;
        last.add(t.addr[i]!);
        const g = finals.segs.find((x) => x.addr === t.addr[i]);
        if (g && !g.expandable) assert.equal(g.stream, t.stream[i], `${path} event #${i}`), checked++;
      }
    }
    assert.ok(checked > 50, String(checked));
  });

  it('allocator options as PyTorch spells them; unknown ones and max_split_size_mb ≤ 20 refused', () => {
    const base = {
      maxSplitSize: Infinity,
      maxNonSplitRounding: 20 * MiB,
      rounding: { divisions: new Array<number>(16).fill(0) },
      expandable: false,
      gcThreshold: 0,
    };
    const c = applyAllocConf(base, 'max_split_size_mb:64,roundup_power2_divisions:[64:8,>:2],expandable_segments:True');
    assert.deepEqual(
      [c.maxSplitSize, c.rounding.divisions[6], c.rounding.divisions[7], c.rounding.divisions[0], c.expandable],
      [64 * MiB, 8, 2, 0, true],
    );
    assert.equal(applyAllocConf(base, 'roundup_power2_divisions=4').rounding.divisions[3], 4);
    assert.throws(() => applyAllocConf(base, 'max_split_size_mb:16'), AllocConfError);
    assert.throws(() => applyAllocConf(base, 'max_spilt_size_mb:64'), /unknown allocator option/);
    assert.throws(() => applyAllocConf(base, 'backend:cudaMallocAsync'), /cannot be predicted/);
  });
});
