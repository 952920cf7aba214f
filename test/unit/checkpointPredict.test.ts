import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { liveAt } from '../../extension/src/core/analysis/replay';
import { checkpointPlan, parseCallSite, reorder } from '../../extension/src/core/scale/checkpoint';
import { predictCheckpoint } from '../../extension/src/core/scale/checkpointPredict';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { backwardPhases, categorize, Category } from '../../extension/src/core/timeline/categories';
import { ROOT } from './helpers';

// Checkpointing predicted on a real nanoGPT capture (6 blocks, AdamW, bf16; test/gpu/capture/
// frameworks/nanogpt.py, its loop `x = block(x)` at line 60). Whether the figure is what a
// checkpointed rerun measures is test/gpu/scale.gpu.test.ts's question; here, what must hold.
const SNAP = join(ROOT, 'test', 'fixtures', 'modules', 'nanogpt_eager', 'snapshot-peak.pickle.gz');
const LOOP = join(ROOT, 'test', 'gpu', 'capture', 'frameworks', 'nanogpt.py');
const loopLine =
  readFileSync(LOOP, 'utf8')
    .split('\n')
    .findIndex((l) => l.trim() === 'x = block(x)') + 1;

describe('activation checkpointing of the calls at a line', () => {
  it('finds a call per block per forward, keeps each output, and moves the rest to the backward', async () => {
    const s = await loadSnapshotFile(SNAP);
    const a = analyzeDevice(s, 0);
    const plan = checkpointPlan(s, a, { file: 'nanogpt.py', line: loopLine });
    assert.equal(plan.calls % 6, 0, `${plan.calls} calls: six blocks a forward`);
    assert.ok(plan.calls >= 6 && plan.movedBytes > 0 && plan.keptBytes > 0);
    const e = a.replay.elements;
    for (const [k, at] of plan.moved)
      assert.ok(at >= e.alloc[k]! && at < e.free[k]!, 'made again after its first making, before it is freed');
    const order = reorder(a, plan.moved);
    assert.deepEqual(
      [...order].sort((x, y) => x - y),
      [...Array(a.replay.n).keys()],
      'every event once',
    );
  });

  it('the peak falls, but never below what no checkpoint frees (parameters, gradients, optimizer state at the peak)', async () => {
    const s = await loadSnapshotFile(SNAP);
    const a = analyzeDevice(s, 0);
    const p = predictCheckpoint(s, a, { file: 'nanogpt.py', line: loopLine });
    assert.ok(p.requestedPeak < a.replay.peak.requestedBytes * 0.9, `${p.requestedPeak} vs ${a.replay.peak.requestedBytes}`);
    const cats = categorize(s, a, backwardPhases(s, a));
    const state = [...liveAt(a.replay.elements, a.replay.peak.index)]
      .filter((k) => [Category.Parameter, Category.Gradient, Category.Optimizer].includes(cats[k]!))
      .reduce((x, k) => x + a.replay.elements.size[k]!, 0);
    assert.ok(p.requestedPeak > state, `${p.requestedPeak} vs state ${state}`);
    assert.ok(p.reservedPeak! <= a.replay.reservedPeak.bytes && p.reservedPeak! >= p.requestedPeak);
  });

  it('a line whose calls keep no activation changes nothing; a line with no allocation under it is refused', async () => {
    const s = await loadSnapshotFile(SNAP);
    const a = analyzeDevice(s, 0);
    const inputs =
      readFileSync(LOOP, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('torch.randint(0, 8192')) + 1;
    assert.equal(predictCheckpoint(s, a, { file: 'nanogpt.py', line: inputs }).requestedPeak, a.replay.peak.requestedBytes);
    assert.throws(
      () => predictCheckpoint(s, a, { file: 'other.py', line: loopLine }),
      /nothing in the trace was allocated under other\.py/,
    );
    assert.deepEqual(parseCallSite('a/b.py:12'), { file: 'a/b.py', line: 12 });
    assert.equal(parseCallSite('b.py'), undefined);
    assert.equal(parseCallSite('b.py:0'), undefined);
  });

  it('headroom whatif --checkpoint says the same in --json', () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), 'whatif', SNAP, '--checkpoint', `nanogpt.py:${loopLine}`, '--json'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { predicted: { requested_peak_bytes: number; calls: number; assumptions: string[] } };
    assert.ok(j.predicted.requested_peak_bytes > 0 && j.predicted.calls >= 6 && j.predicted.assumptions.length >= 3);
  });
});
