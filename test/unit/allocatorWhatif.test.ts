import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFrom } from '../../extension/src/core/allocator/config';
import { replayAllocator } from '../../extension/src/core/allocator/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { inexact, missed, predictionRows, replayRows } from '../gpu/whatifChecks';
import { ROOT } from './helpers';

// Predictions against reality, on the recordings test/gpu/whatif.gpu.test.ts made on an H100 (the
// JSON beside each holds PyTorch's own figures): six workloads recorded with the default settings,
// rerun under four others, three of them also under a memory fraction. The pickles committed are
// the default recordings and the small reruns; the GPU test checks all of them.
const DIR = join(ROOT, 'test', 'fixtures', 'whatif');

describe('what-if predictions against reruns on an H100', () => {
  it('every committed recording replays exactly with its own settings (expandable, private pools and caps included)', async () => {
    const rows = await replayRows(DIR);
    assert.ok(rows.length >= 20, String(rows.length));
    assert.deepEqual(inexact(rows), []);
    assert.ok(
      rows.some((r) => r.name.includes('expandable')) &&
        rows.some((r) => r.name.startsWith('graphs')) &&
        rows.some((r) => r.name.includes('-cap')),
    );
  });

  it('each rerun is what the default recording predicted: the reserved peak to within 3 %, OOM or not', async () => {
    const rows = await predictionRows(DIR);
    assert.ok(rows.length >= 39, String(rows.length));
    assert.deepEqual(missed(rows), []);
    // Both directions occur: a setting that saves memory, one that costs more, an OOM, a fit under a cap.
    assert.ok(rows.some((r) => r.predicted < r.recordedReserved * 0.9) && rows.some((r) => r.predicted > r.recordedReserved * 1.1));
    assert.ok(rows.some((r) => r.oom[1]) && rows.some((r) => r.capBytes !== null && !r.oom[1]));
  });

  it('held out (five real clients never used for tuning, measured once on an H100): OOM or not right on all, reserved peak within 3 %', async () => {
    const held = join(DIR, 'heldout');
    assert.deepEqual(inexact(await replayRows(held)), []);
    const rows = await predictionRows(held);
    assert.ok(rows.length >= 35, String(rows.length));
    assert.deepEqual(missed(rows), []);
  });

  it('the check has teeth: an expandable recording replayed as if without expandable segments is placed otherwise', async () => {
    const s = await loadSnapshotFile(join(DIR, 'two_streams-expandable_segments_True.pickle.gz'));
    const r = replayAllocator(s, 0, { ...configFrom(s.allocatorSettings), expandable: false, maxSplitSize: 64 * 2 ** 20 });
    assert.ok(!r.supported || r.mismatchCount > 0);
  });
});
