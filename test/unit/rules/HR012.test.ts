import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeRule, fixed } from '../lintHelpers';

// HR012's tests: its page (docs/rules/HR012.md) says what it finds and when it stays silent.

describeRule('HR012 pin-memory-misuse', (lint) => {
  it('HR012: per-tensor pinning in a loop, and a host read before the copy is done', () => {
    const pin = 'import torch\nfor x in batches:\n    y = x.pin_memory().to(dev, non_blocking=True)\n';
    const [a] = lint(pin, 'HR012');
    assert.equal(fixed(pin, a!), pin.replace('x.pin_memory().to', 'x.to'));
    const read = 'import torch\ny = t.to("cpu", non_blocking=True)\nprint(y.numpy())\nv = y.numpy()\n';
    const [c] = lint(read, 'HR012');
    assert.equal(c?.severity, 'warning');
    assert.equal(fixed(read, c!), read.replace(', non_blocking=True', ''));
    assert.deepEqual(lint('import torch\ny = t.to("cpu", non_blocking=True)\ntorch.cuda.synchronize()\nv = y.numpy()\n', 'HR012'), []);
  });
});
