import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule, fixed } from '../lintHelpers';

// HR010's tests: its page (docs/rules/HR010.md) says what it finds and when it stays silent.

describeRule('HR010 constant-tensor-moved-in-loop', (lint) => {
  it('HR010 folds the copy into the factory', () => {
    const src =
      'import torch\nfor x in loader:\n    m = torch.zeros(3, 4).cuda()\n    n = torch.ones(8, dtype=torch.int64).to(dev)\n    k = torch.zeros(2, device="cuda")\n';
    const fs = lint(src, 'HR010');
    assert.equal(fs.length, 2);
    assert.equal(fixed(src, fs[0]!), src.replace('torch.zeros(3, 4).cuda()', 'torch.zeros(3, 4, device="cuda")'));
    assert.equal(
      fixed(src, fs[1]!),
      src.replace('torch.ones(8, dtype=torch.int64).to(dev)', 'torch.ones(8, dtype=torch.int64, device=dev)'),
    );
    assert.deepEqual(lint('import torch\nm = torch.zeros(3).cuda()\n', 'HR010'), []);
  });
});
