import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { fitTwoRuns } from '../../extension/src/core/scale/fit';
import { predictScale } from '../../extension/src/core/scale/predict';
import { scaleReport } from '../../extension/src/core/scale/report';
import { scaleRoles } from '../../extension/src/core/scale/roles';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { scaleErrors, scaleRows } from '../gpu/scaleChecks';
import { fixtures, OWN_SNAPSHOTS, ROOT } from './helpers';

// The same training script recorded at batch 64 and at batch 128 on an H200 (test/e2e/workspace/
// train.py), PyTorch's own peaks in each .truth.json: each predicts the other. The six-workload
// check against reruns is test/gpu/scale.gpu.test.ts.
const truth = (name: string) =>
  JSON.parse(readFileSync(join(OWN_SNAPSHOTS, `${name}.truth.json`), 'utf8')) as {
    requested_bytes_peak: number;
    max_memory_reserved: number;
  };
const load = async (name: string): Promise<[Snapshot, DeviceAnalysis]> => {
  const s = await loadSnapshotFile(join(OWN_SNAPSHOTS, `${name}.pickle`));
  return [s, analyzeDevice(s, defaultDevice(s)!)];
};
const CLI = join(ROOT, 'dist', 'cli.js');
const headroom = (...args: string[]) => spawnSync(process.execPath, [CLI, 'whatif', ...args], { encoding: 'utf8' });

describe('the run at another batch', () => {
  before(() => assert.equal(spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT }).status, 0));

  it('at its own batch the prediction is the recording: requested and reserved peaks to the byte', async () => {
    for (const f of fixtures()
      .filter((x) => x.truth && !x.truth.num_ooms)
      .slice(0, 8)) {
      const s = await loadSnapshotFile(f.path);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const p = predictScale(s, a, scaleRoles(s, a), 1);
      assert.equal(p.requestedPeak, a.replay.peak.requestedBytes, f.name);
      if (a.allocated.exact) assert.equal(p.reservedPeak, a.replay.reservedPeak.bytes, f.name);
    }
  });

  it('batch 64 predicts batch 128 and back, within 0.01 % of PyTorch’s peaks', async () => {
    for (const [from, to, scale] of [
      ['e2e_train_b64', 'e2e_train_b128', 2],
      ['e2e_train_b128', 'e2e_train_b64', 0.5],
    ] as const) {
      const [s, a] = await load(from);
      const p = predictScale(s, a, scaleRoles(s, a, from.endsWith('64') ? 64 : 128), scale);
      const t = truth(to);
      assert.ok(
        Math.abs(p.requestedPeak - t.requested_bytes_peak) / t.requested_bytes_peak < 1e-4,
        `${from}→${to}: ${p.requestedPeak} vs ${t.requested_bytes_peak}`,
      );
      assert.ok(
        Math.abs(p.reservedPeak! - t.max_memory_reserved) / t.max_memory_reserved < 1e-4,
        `${from}→${to} reserved: ${p.reservedPeak} vs ${t.max_memory_reserved}`,
      );
      assert.ok(
        p.assumptions.some((x) => x.startsWith('fixed: parameters')),
        p.assumptions.join('\n'),
      );
    }
  });

  it('from a run that stopped at its OOM: that OOM at its own batch, and at smaller batches a peak below the reruns’ (a lower bound, as it says)', async () => {
    // An MLP at growing batches on an H100 until one ran out (test/gpu/capture/batch_sweep.py): the
    // failing batch is recorded; the truth holds PyTorch's peak at each batch that ran.
    const [s, a] = await load('batch_oom');
    const t = JSON.parse(readFileSync(join(OWN_SNAPSHOTS, 'batch_oom.truth.json'), 'utf8')) as {
      peaks: Record<string, number>;
      oom_batch: number;
    };
    const roles = scaleRoles(s, a, t.oom_batch);
    const limit = { bytes: 78.4 * 2 ** 30, cap: false };
    assert.ok(predictScale(s, a, roles, 1, { limit }).ooms > 0);
    for (const [batch, peak] of Object.entries(t.peaks)) {
      const p = predictScale(s, a, roles, Number(batch) / t.oom_batch, { limit });
      assert.ok(p.requestedPeak <= peak && p.requestedPeak > 0.6 * peak, `batch ${batch}: ${p.requestedPeak} vs ${peak}`);
      assert.equal(p.confidence, 'low');
      assert.ok(p.assumptions.some((x) => /lower bound/.test(x)));
    }
  });

  it('more batch never needs less: the predicted peaks rise with the scale', async () => {
    const [s, a] = await load('leaky_demo');
    const roles = scaleRoles(s, a);
    const peaks = [0.5, 1, 2, 4, 8].map((x) => predictScale(s, a, roles, x));
    for (let i = 1; i < peaks.length; i++) assert.ok(peaks[i]!.requestedPeak >= peaks[i - 1]!.requestedPeak, `${i}`);
    assert.ok(peaks[4]!.requestedPeak > peaks[1]!.requestedPeak, 'the demo has activations that scale');
  });

  it('two runs: each allocation matched by code path; the second run is reproduced, the first too', async () => {
    const [s, a] = await load('e2e_train_b64');
    const [s2, a2] = await load('e2e_train_b128');
    const roles = scaleRoles(s, a);
    const fit = fitTwoRuns(s, a, roles, s2, a2, 2);
    assert.ok(fit.matchedShare > 0.95, String(fit.matchedShare));
    assert.equal(predictScale(s, a, roles, 2, { fit }).requestedPeak, truth('e2e_train_b128').requested_bytes_peak);
    assert.equal(predictScale(s, a, roles, 1, { fit }).requestedPeak, truth('e2e_train_b64').requested_bytes_peak);
    // Proportional sizes fit the same as a line and as a power: the sequence fit agrees at 4×.
    const seq = fitTwoRuns(s, a, roles, s2, a2, 2, true);
    const [x, y] = [
      predictScale(s, a, roles, 4, { fit }).requestedPeak,
      predictScale(s, a, roles, 4, { fit: seq, axis: 'seq' }).requestedPeak,
    ];
    assert.ok(Math.abs(x - y) / x < 0.001, `${x} vs ${y}`);
  });

  it('the largest batch: its prediction fits the room, one more does not; more room, no smaller batch', async () => {
    const [s, a] = await load('e2e_train_b64');
    const best = (gib: number) => scaleReport(s, a, { kind: 'max', margin: 0.05 }, { bytes: gib * 2 ** 30, cap: true }, 64).max!;
    const m = best(1);
    assert.ok(m.best > 64 && m.at!.ooms === 0 && m.at!.reservedPeak! <= m.room);
    assert.ok(m.next!.ooms > 0 || m.next!.reservedPeak! > m.room);
    assert.ok(best(2).best >= m.best);
    assert.equal(best(0.3).best, 0, 'parameters and optimizer state alone pass 0.3 GiB');
  });

  it('checks against reruns read a folder of runs as the GPU test does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-scale-'));
    for (const b of [64, 128]) {
      copyFileSync(join(OWN_SNAPSHOTS, `e2e_train_b${b}.pickle`), join(dir, `mlp-b${b}.pickle`));
      const t = truth(`e2e_train_b${b}`);
      writeFileSync(
        join(dir, `mlp-b${b}.json`),
        JSON.stringify({
          workload: 'mlp',
          batch: b,
          seq: null,
          ckpt: false,
          oom: false,
          requested_peak: t.requested_bytes_peak,
          reserved_peak: t.max_memory_reserved,
        }),
      );
    }
    const rows = await scaleRows(dir, { mlp: { batch: 64 } });
    assert.deepEqual(
      rows.map((r) => [r.scale, r.model]),
      [[2, 'one run']],
    );
    assert.ok(scaleErrors(rows).requestedWorst < 1e-4);
  });

  it('headroom whatif answers a batch question in --json, and refuses what it cannot answer', () => {
    const f = join(OWN_SNAPSHOTS, 'e2e_train_b64.pickle');
    const r = headroom(f, '--batch', '128', '--recorded-batch', '64', '--json');
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.predicted.batch, 128);
    assert.ok(Math.abs(j.predicted.requested_peak_bytes - truth('e2e_train_b128').requested_bytes_peak) < 1e3);
    assert.ok(j.predicted.reserved_peak_bytes > 0 && j.predicted.assumptions.length >= 3);
    for (const [args, why] of [
      [['--batch', '128'], /--recorded-batch/],
      [['--batch-scale', '2', '--alloc-conf', 'expandable_segments:True'], /one thing at a time/],
      [['--max-batch'], /--device-gib/],
      [['--batch-scale', '-1'], /positive/],
      [['--batch-scale', '2', '--max-batch'], /one of/],
      [['--batch-scale', '2', '--with', f], /--with-batch/],
    ] as const) {
      const e = headroom(f, ...args);
      assert.equal(e.status, 2, `${args.join(' ')}: ${e.stderr}`);
      assert.match(e.stderr, why);
    }
  });
});
