import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule } from '../lintHelpers';

// HR015's tests: its page (docs/rules/HR015.md) says what it finds and when it stays silent.

describeRule('HR015 oom-retry-in-except', (lint) => {
  it('HR015: retrying the model inside except, not logging or skipping', () => {
    const retry = 'import torch\ntry:\n    out = model(x)\nexcept torch.cuda.OutOfMemoryError:\n    out = model(x[:1])\n';
    assert.equal(lint(retry, 'HR015').length, 1);
    const skip =
      'import torch\nfor x in loader:\n    try:\n        out = model(x)\n    except RuntimeError as e:\n        print(e)\n        torch.cuda.empty_cache()\n        continue\n';
    assert.deepEqual(lint(skip, 'HR015'), []);
  });
});
