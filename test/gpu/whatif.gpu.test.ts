// The allocator replay and its what-if predictions against reality, on the GPU host: run.sh records
// six workloads (a transformer, a ResNet, Faster R-CNN, two streams, a CUDA graph, fragmentation)
// under five settings each, three of them again under a memory fraction; then every recording must
// replay exactly with its own settings, and every rerun must be what the prediction from the
// workload's default recording said: reserved peak within 3 % (or within what the workload itself
// varies between two identical runs, measured here too) and OOM or not. With OUT set, the table
// and the figures go there (docs/allocator-replay.md). HEADROOM_WHATIF_DIR: where the recordings go
// (kept; recordings already there are checked again instead). CI skips it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { cudaAvailable, NO_GPU } from './cuda';
import { inexact, missed, predictionRows, predictionTable, replayRows, runNames } from './whatifChecks';
import type { RunFigures } from './whatifChecks';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');

describe('allocator what-if against reruns on the GPU', { skip: cudaAvailable() ? false : NO_GPU }, () => {
  const dir = process.env.HEADROOM_WHATIF_DIR ?? mkdtempSync(join(tmpdir(), 'headroom-whatif-'));
  mkdirSync(dir, { recursive: true });
  it('records every workload under every setting', () => {
    if (!runNames(dir).length) execFileSync('bash', [join(ROOT, 'test', 'gpu', 'capture', 'whatif', 'run.sh'), dir], { stdio: 'inherit' });
  });

  it('every recording replays exactly with its own settings: each placement, PyTorch peaks and end', async () => {
    const rows = await replayRows(dir);
    assert.ok(rows.length >= 40, String(rows.length));
    assert.deepEqual(inexact(rows), []);
  });

  it('every rerun is what the default recording predicted: reserved peak within 3 % (or the run-to-run spread), OOM or not', async () => {
    const rows = await predictionRows(dir);
    const fig = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as RunFigures;
    // The same workload twice with the same settings: how far reality itself moves (cross-stream timing).
    const spread = (w: string) =>
      Math.abs(fig(`${w}-default-again`).reserved_peak - fig(`${w}-default`).reserved_peak) / fig(`${w}-default`).reserved_peak;
    if (process.env.OUT)
      writeFileSync(
        join(process.env.OUT, 'whatif-table.md'),
        predictionTable(rows) +
          '\n' +
          [...new Set(rows.map((r) => r.workload))].map((w) => `${w}: run-to-run spread ${(spread(w) * 100).toFixed(2)} %`).join('\n') +
          '\n',
      );
    assert.ok(rows.length >= 35, String(rows.length));
    assert.deepEqual(
      missed(rows, (w) => Math.max(0.03, spread(w))),
      [],
    );
    assert.ok(rows.some((r) => r.oom[1]) && rows.some((r) => r.capBytes && !r.oom[1]), 'OOMs and fits under a cap both occur');
  });
});
