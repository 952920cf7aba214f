import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR006's tests: its page (docs/rules/HR006.md) says what it finds and when it stays silent.

describeRule('HR006 checkpoint-use-reentrant', (lint) => {
  it('adds use_reentrant=False, whatever the import spelling and trailing comma', () => {
    const cases: [string, string][] = [
      ['from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x)\n', 'y = checkpoint(f, x, use_reentrant=False)\n'],
      [
        'import torch.utils.checkpoint as cp\ny = cp.checkpoint(\n    f,\n    x,\n)\n',
        'y = cp.checkpoint(\n    f,\n    x, use_reentrant=False\n)\n',
      ],
      [
        'import torch\ny = torch.utils.checkpoint.checkpoint_sequential(fs, 2, x)\n',
        'y = torch.utils.checkpoint.checkpoint_sequential(fs, 2, x, use_reentrant=False)\n',
      ],
    ];
    for (const [src, want] of cases) {
      const [f, ...rest] = lint(src, 'HR006');
      assert.equal(rest.length, 0);
      assert.ok(f, src);
      assert.equal(fixed(src, f).split('\n').slice(1).join('\n'), want);
    }
  });

  it('no finding with the keyword, with **kwargs, or for another checkpoint()', () => {
    const src = code(`
import torch
from torch.utils.checkpoint import checkpoint
from deepspeed import checkpointing
a = checkpoint(f, x, use_reentrant=True)
b = checkpoint(f, x, **kw)
c = checkpointing.checkpoint(f, x)
`);
    assert.deepEqual(lint(src, 'HR006'), []);
  });
});
