// The leak detector on real training loops captured on an H100 (test/gpu/capture/leak_matrix.py):
// clean loops of every shape raise nothing; leaks of bytes, KiB and MiB per step (one kept by a
// Lightning hook) are found at their line with the size PyTorch measured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { describeLeak, detectLeaks } from '../../extension/src/core/diagnose/leaks';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const DIR = join(ROOT, 'test', 'fixtures', 'leaks', 'matrix');

interface Truth {
  boundaries: { requested: number; allocated: number }[];
  leak: { bytes_per_step: number; file: string; line: number } | null;
}

const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.pickle.gz'))
  .map((f) => f.replace('.pickle.gz', ''))
  .sort();

describe('leak detection on real training loops', () => {
  it('covers the matrix: layer-loop transformers eager and compiled, accumulation, a GAN, HF Trainer, Lightning, eval-only, a plateauing cache, three leak sizes', () => {
    for (const c of [
      'transformer_eager',
      'transformer_compiled',
      'grad_accum',
      'gan',
      'hf_trainer',
      'lightning',
      'eval_only',
      'cache_plateau',
      'leak_bytes',
      'leak_kib',
      'leak_mib',
      'leak_lightning_hook',
    ])
      assert.ok(cases.includes(c), c);
  });

  it('headroom check --no-leak fails on any steady leak; --leak-min tolerates one below it', () => {
    const check = (...extra: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', join(DIR, 'leak_kib.pickle.gz'), '--no-leak', ...extra], {
        encoding: 'utf8',
      });
    assert.equal(check().status, 1);
    assert.equal(check('--leak-min', '2KiB').status, 1, '2.50 KiB per step is over 2 KiB');
    const tolerated = check('--leak-min', '4KiB');
    assert.equal(tolerated.status, 0, tolerated.stdout);
    assert.match(
      tolerated.stdout,
      /Steady growth of \+2\.50 KiB per iteration: 24\.4 MiB per 10,000 iterations, below the tolerated minimum/,
    );
    assert.equal(
      spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', join(DIR, 'lightning.pickle.gz'), '--no-leak'], {
        encoding: 'utf8',
      }).status,
      0,
    );
  });

  for (const c of cases)
    it(c, async () => {
      const truth = JSON.parse(readFileSync(join(DIR, `${c}.truth.json`), 'utf8')) as Truth;
      const s = await loadSnapshotFile(join(DIR, `${c}.pickle.gz`));
      const r = detectLeaks(s, analyzeDevice(s, 0));
      const said = describeLeak(r).join('\n');
      if (!truth.leak) {
        assert.equal(r.leaking, false, said);
        return;
      }
      // PyTorch's own growth per step, from requested bytes at the workload's step boundaries.
      const req = truth.boundaries.map((b) => b.requested);
      const measured = (req.at(-1)! - req[2]!) / (req.length - 3);
      assert.ok(
        Math.abs(measured - truth.leak.bytes_per_step) <= 0.05 * truth.leak.bytes_per_step,
        `the capture grows by ${measured} B per step`,
      );
      assert.ok(r.leaking, said);
      assert.ok(Math.abs(r.bytesPerIteration - measured) <= 0.05 * measured, `${r.bytesPerIteration} vs ${measured}: ${said}`);
      const top = r.lines[0]!;
      assert.ok(top.file.endsWith(truth.leak.file), top.file);
      assert.equal(top.line, truth.leak.line, said);
      assert.equal(r.severity, truth.leak.bytes_per_step >= 64 * 1024 ? 'warning' : 'hint');
    });
});
