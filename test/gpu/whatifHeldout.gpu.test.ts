// The allocator what-if check held out: real clients' training code the model was never tuned on
// (HF Trainer with checkpointing and bf16, a compiled nanoGPT loop, Lightning, timm's ViT, HF T5),
// recorded on the GPU host under five settings and, with three, under a cap of 95 % of the default
// reserved peak (test/gpu/capture/whatif/heldout.sh). Every recording must replay exactly; every
// rerun is compared with the prediction from the default recording. With OUT set, the table goes
// there (docs/allocator-replay.md reports it, measured once). HEADROOM_WHATIF_HELDOUT_DIR: where the
// recordings go (kept; recordings already there are checked again). CI skips it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { cudaAvailable, NO_GPU } from './cuda';
import { inexact, missed, predictionRows, predictionTable, replayRows, runNames } from './whatifChecks';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');

describe('allocator what-if on held-out real clients', { skip: cudaAvailable() ? false : NO_GPU }, () => {
  const dir = process.env.HEADROOM_WHATIF_HELDOUT_DIR ?? mkdtempSync(join(tmpdir(), 'headroom-whatif-heldout-'));
  mkdirSync(dir, { recursive: true });
  it('records five real clients under every setting', () => {
    if (!runNames(dir).length)
      execFileSync('bash', [join(ROOT, 'test', 'gpu', 'capture', 'whatif', 'heldout.sh'), dir], { stdio: 'inherit' });
  });

  it('every recording replays exactly with its own settings', async () => {
    const rows = await replayRows(dir);
    assert.ok(rows.length >= 35, String(rows.length));
    assert.deepEqual(inexact(rows), []);
  });

  it('every rerun is what the default recording predicted: reserved peak within 3 %, OOM or not', async () => {
    const rows = await predictionRows(dir);
    if (process.env.OUT) writeFileSync(join(process.env.OUT, 'whatif-heldout-table.md'), predictionTable(rows));
    assert.ok(rows.length >= 30, String(rows.length));
    assert.deepEqual(missed(rows), []);
  });
});
