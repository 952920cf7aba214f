import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule, fixed } from '../lintHelpers';

// HR016's tests: its page (docs/rules/HR016.md) says what it finds and when it stays silent.

describeRule('HR016 gpu-checkpoint-load-surge', (lint) => {
  it('HR016 adds map_location="cpu" when the checkpoint goes into load_state_dict', () => {
    const src = 'import torch\nsd = torch.load(path)\nmodel.load_state_dict(sd["model"])\nother = torch.load(p2)\n';
    const fs = lint(src, 'HR016');
    assert.equal(fs.length, 1);
    assert.equal(fixed(src, fs[0]!), src.replace('torch.load(path)', 'torch.load(path, map_location="cpu")'));
    assert.equal(lint('import torch\nmodel.load_state_dict(torch.load(p))\n', 'HR016').length, 1);
    assert.deepEqual(lint('import torch\nmodel.load_state_dict(torch.load(p, map_location="cpu"))\n', 'HR016'), []);
  });
});
