import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule, fixed } from '../lintHelpers';

// HR018's tests: its page (docs/rules/HR018.md) says what it finds and when it stays silent.

describeRule('HR018 deprecated-memory-api', (lint) => {
  it('HR018 renames cached → reserved and converts list constructors', () => {
    const src =
      'import torch as th\na = th.cuda.memory_cached()\nth.cuda.reset_max_memory_allocated()\nt = th.cuda.FloatTensor([1.0, 2.0])\nu = th.cuda.FloatTensor(3, 4)\n';
    const fs = lint(src, 'HR018');
    assert.equal(fs.length, 4);
    assert.equal(fixed(src, fs[0]!), src.replace('memory_cached', 'memory_reserved'));
    assert.equal(fixed(src, fs[1]!), src.replace('reset_max_memory_allocated', 'reset_peak_memory_stats'));
    assert.equal(
      fixed(src, fs[2]!),
      src.replace('th.cuda.FloatTensor([1.0, 2.0])', 'th.tensor([1.0, 2.0], dtype=th.float32, device="cuda")'),
    );
    assert.equal(fs[3]!.fixes.length, 0);
  });
});
