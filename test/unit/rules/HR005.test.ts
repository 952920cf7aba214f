import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR005's tests: its page (docs/rules/HR005.md) says what it finds and when it stays silent.

describeRule('HR005 empty-cache-in-step-loop', (lint) => {
  it('in a step loop: a warning; the fix removes the line and keeps the comment above', () => {
    const src = code(`
import torch
for batch in loader:
    loss = model(batch).sum()
    loss.backward()
    # free memory (does not)
    torch.cuda.empty_cache()
    optimizer.step()
`);
    const [f] = lint(src, 'HR005');
    assert.equal(f?.severity, 'warning');
    assert.equal(fixed(src, f!), src.replace('    torch.cuda.empty_cache()\n', ''));
  });

  it('alone in its block it becomes pass; an alias resolves', () => {
    const src =
      'from torch.cuda import empty_cache\nimport torch\nfor batch in loader:\n    loss = model(batch)\n    loss.backward()\n    if loss > 3:\n        empty_cache()\n';
    const [f] = lint(src, 'HR005');
    assert.ok(f);
    assert.equal(fixed(src, f), src.replace('        empty_cache()', '        pass'));
  });

  it('not in an OOM handler, nor every N steps, nor outside loops', () => {
    const src = code(`
import torch
torch.cuda.empty_cache()
for step, batch in enumerate(loader):
    try:
        loss = model(batch)
        loss.backward()
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
    if step % 100 == 0:
        torch.cuda.empty_cache()
`);
    assert.deepEqual(lint(src, 'HR005'), []);
  });

  it("not after an OOM either, under the flag its handler sets (fairseq's trainer: `if has_oom:`); an unrelated flag is no guard", () => {
    const src = code(`
import torch
for i, batch in enumerate(loader):
    FLAG = False
    try:
        loss = model(batch)
        loss.backward()
    except RuntimeError as e:
        if "out of memory" in str(e):
            FLAG = True
    if FLAG:
        optimizer.zero_grad()
        torch.cuda.empty_cache()
`);
    for (const flag of ['has_oom', 'oom', 'self.oom', 'is_oom_batch'])
      assert.deepEqual(lint(src.replaceAll('FLAG', flag), 'HR005'), [], flag);
    for (const flag of ['zoom', 'log_now', 'room']) assert.equal(lint(src.replaceAll('FLAG', flag), 'HR005').length, 1, flag);
  });
});
