import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule, fixed } from '../lintHelpers';

// HR008's tests: its page (docs/rules/HR008.md) says what it finds and when it stays silent.

describeRule('HR008 zero-grad-writes-zeros', (lint) => {
  it('HR008 removes set_to_none=False', () => {
    const src = 'import torch\nopt.zero_grad(set_to_none=False)\nopt.zero_grad(set_to_none=True)\n';
    const fs = lint(src, 'HR008');
    assert.equal(fs.length, 1);
    assert.equal(fixed(src, fs[0]!), src.replace('opt.zero_grad(set_to_none=False)', 'opt.zero_grad()'));
  });
});
