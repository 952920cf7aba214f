// Library files (model code in site-packages) on the HF Trainer capture: which files count, and
// their lines as if they were the user's.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { libraryFiles, libraryLines } from '../../extension/src/core/analysis/libraryLines';
import { exactGlob, globToRegExp, isTorchOrGenerated } from '../../extension/src/core/analysis/userCode';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const SNAP = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');
const SITE = '/opt/torch/.venv/lib/python3.12/site-packages';

describe('library files', () => {
  it('torch’s own package and generated code are never model code; a venv named torch is not torch', () => {
    assert.ok(isTorchOrGenerated(`${SITE}/torch/nn/modules/linear.py`));
    assert.ok(isTorchOrGenerated('/home/u/pytorch/torch/nn/modules/module.py'));
    assert.ok(isTorchOrGenerated('/tmp/torchinductor_u/ab/cabc.py'));
    assert.ok(isTorchOrGenerated('<frozen runpy>'));
    assert.ok(!isTorchOrGenerated(`${SITE}/transformers/models/gpt2/modeling_gpt2.py`));
    assert.ok(!isTorchOrGenerated('/work/torch/train.py'));
  });

  it('an exact glob matches its path only, with *, ? and [ taken literally', () => {
    const p = '/data/run[1]/a*b?.py';
    assert.ok(globToRegExp(exactGlob(p)).test(p));
    assert.ok(!globToRegExp(exactGlob(p)).test('/data/run1/axxb1.py'));
  });

  it('the capture’s library files include the model’s code and no torch file; their lines add up under the peak', async () => {
    const s = await loadSnapshotFile(SNAP);
    const a = analyzeDevice(s, 0);
    const files = libraryFiles(s, a);
    assert.ok(files.includes(`${SITE}/transformers/models/gpt2/modeling_gpt2.py`), JSON.stringify(files));
    assert.ok(!files.some((f) => f.includes('/site-packages/torch/')), JSON.stringify(files.filter((f) => f.includes('torch/'))));
    const gpt2 = `${SITE}/transformers/models/gpt2/modeling_gpt2.py`;
    const lines = libraryLines(s, a, a.replay.peak.index, [gpt2]);
    assert.ok(lines.length > 0 && lines.every((l) => l.file === gpt2));
    const self = lines.reduce((t, l) => t + l.selfBytes, 0);
    assert.ok(self > 0 && self <= a.replay.peak.requestedBytes);
    for (const l of lines) assert.ok(l.inclusiveBytes >= l.selfBytes);
    assert.deepEqual(libraryLines(s, a, a.replay.peak.index, []), []);
  });
});
