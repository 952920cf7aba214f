// The batch and sequence predictions against reruns, on the GPU host: capture/scale/run.sh trains
// six workloads (and five held out) at a base batch, ½×, 2× and 4× it, two at other sequence
// lengths, two with every block checkpointed; each rerun must be what the base recording predicted: the requested peak's median error
// ≤ 2 % and worst ≤ 5 %, the reserved peak's worst ≤ 5 %; from two runs no worse than from one. Then
// the largest batch predicted to fit under a cap is rerun under that cap, and must not run out.
// With OUT set, the tables go there (docs/scale-prediction.md). HEADROOM_SCALE_DIR keeps the runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { scaleReport } from '../../extension/src/core/scale/report';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { cudaAvailable, NO_GPU } from './cuda';
import { checkpointRows, checkpointTable } from './checkpointChecks';
import { HELDOUT, relError, scaleErrors, scaleRows, scaleTable, TUNED } from './scaleChecks';
import type { ScaleRow } from './scaleChecks';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const HERE = join(ROOT, 'test', 'gpu', 'capture', 'scale');
const CAP_MIB = 6144;

function check(rows: ScaleRow[], label: string): void {
  const one = scaleErrors(rows.filter((r) => r.model === 'one run'));
  const two = scaleErrors(rows.filter((r) => r.model === 'two runs'));
  if (process.env.OUT)
    writeFileSync(
      join(process.env.OUT, `scale-${label}.md`),
      `${scaleTable(rows)}\n\none run: ${JSON.stringify(one)}\ntwo runs: ${JSON.stringify(two)}\n`,
    );
  assert.ok(one.n >= 12, `${label}: ${one.n} one-run cases`);
  assert.ok(one.requestedMedian <= 0.02 && one.requestedWorst <= 0.05, `${label} requested: ${JSON.stringify(one)}`);
  assert.ok(one.reservedWorst <= 0.05, `${label} reserved: ${JSON.stringify(one)}`);
  assert.ok(
    two.requestedMedian <= one.requestedMedian + 1e-4 && two.requestedWorst <= 0.05,
    `${label} two runs: ${JSON.stringify(two)} vs ${JSON.stringify(one)}`,
  );
}

describe('batch and sequence predictions against reruns on the GPU', { skip: cudaAvailable() ? false : NO_GPU }, () => {
  const dir = process.env.HEADROOM_SCALE_DIR ?? mkdtempSync(join(tmpdir(), 'headroom-scale-'));
  mkdirSync(dir, { recursive: true });
  it('trains every workload at every size', () => {
    if (!existsSync(join(dir, 'tuned'))) execFileSync('bash', [join(HERE, 'run.sh'), dir], { stdio: 'inherit' });
  });

  it('the tuned workloads: every rerun is what the base recording predicted', async () =>
    check(await scaleRows(join(dir, 'tuned'), TUNED), 'tuned'));

  it('the held-out workloads, measured once: the same bounds', async () =>
    check(await scaleRows(join(dir, 'heldout'), HELDOUT), 'heldout'));

  it('checkpointing every block, predicted from the plain run: the checkpointed rerun’s requested peak within 5 %', async () => {
    const rows = await checkpointRows(join(dir, 'tuned'), TUNED, join(HERE, 'workloads.py'));
    if (process.env.OUT) writeFileSync(join(process.env.OUT, 'scale-ckpt.md'), checkpointTable(rows) + '\n');
    assert.equal(rows.length, 2);
    for (const r of rows) assert.ok(Math.abs(relError(r.requested)) <= 0.05, `${r.workload}: ${JSON.stringify(r)}`);
  });

  it('the largest batch predicted to fit under a cap runs under it', async () => {
    const lines: string[] = [];
    for (const [w, base] of Object.entries(TUNED)) {
      const s = await loadSnapshotFile(join(dir, 'tuned', `${w}-b${base.batch}.pickle.gz`));
      const r = scaleReport(s, analyzeDevice(s, 0), { kind: 'max', margin: 0.05 }, { bytes: CAP_MIB * 2 ** 20, cap: true }, base.batch);
      const best = r.max!.best;
      const run = (b: number) => {
        execFileSync('python3', [join(HERE, 'workloads.py'), w, join(dir, 'max'), '--batch', String(b), '--cap-mib', String(CAP_MIB)], {
          stdio: 'ignore',
          cwd: HERE,
        });
        return JSON.parse(readFileSync(join(dir, 'max', `${w}-b${b}-cap${CAP_MIB}.json`), 'utf8')) as {
          oom: boolean;
          reserved_peak: number;
        };
      };
      mkdirSync(join(dir, 'max'), { recursive: true });
      const at = best ? run(best) : undefined;
      const next = run(best + 1);
      lines.push(`| ${w} | ${best} | ${at ? (at.oom ? 'OOM' : 'fits') : '-'} | ${next.oom ? 'OOM' : 'fits'} |`);
      assert.ok(!at?.oom, `${w}: batch ${best} was predicted to fit under ${CAP_MIB} MiB and ran out`);
    }
    if (process.env.OUT)
      writeFileSync(
        join(process.env.OUT, 'scale-max.md'),
        `| workload | predicted largest batch | rerun at it | rerun at one more |\n|---|---|---|---|\n${lines.join('\n')}\n`,
      );
  });
});
