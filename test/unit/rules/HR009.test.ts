import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule } from '../lintHelpers';

// HR009's tests: its page (docs/rules/HR009.md) says what it finds and when it stays silent.

describeRule('HR009 zero-grad-after-forward', (lint) => {
  it('HR009 flags zero_grad between forward and backward, not gradient accumulation', () => {
    const late = 'import torch\nfor x in loader:\n    loss = model(x).sum()\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n';
    assert.deepEqual(
      lint(late, 'HR009').map((f) => f.start.line),
      [3],
    );
    const early = 'import torch\nfor x in loader:\n    opt.zero_grad()\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n';
    assert.deepEqual(lint(early, 'HR009'), []);
    const accum =
      'import torch\nfor i, x in enumerate(loader):\n    loss = model(x).sum()\n    if i % 4 == 0:\n        opt.zero_grad()\n    loss.backward()\n';
    assert.deepEqual(lint(accum, 'HR009'), []);
  });
});
