import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR013's tests: its page (docs/rules/HR013.md) says what it finds and when it stays silent.

describeRule('HR013 retain-graph-in-loop', (lint) => {
  it('HR013 removes retain_graph=True unless a second backward follows in the step', () => {
    const one = code(`
import torch
for x in loader:
    loss = model(x).sum()
    loss.backward(retain_graph=True)
    opt.step()
`);
    const [f] = lint(one, 'HR013');
    assert.ok(f);
    assert.equal(fixed(one, f), one.replace('loss.backward(retain_graph=True)', 'loss.backward()'));
    const gan = code(`
import torch
for x in loader:
    d_loss = critic(model(x)).mean()
    d_loss.backward(retain_graph=True)
    g_loss = -d_loss
    g_loss.backward()
`);
    assert.deepEqual(lint(gan, 'HR013'), []);
  });

  it('HR013: not in a loop over the parts of a graph built before it, where each pass goes through the same graph again (torchrl\'s loss tests)', () => {
    const src = code(`
import torch
loss = loss_fn(td)
for k in loss.keys():
    if not k.startswith("loss"):
        continue
    loss[k].sum().backward(retain_graph=True)
    check_grads(k)
`);
    assert.deepEqual(lint(src, 'HR013'), []);
    assert.deepEqual(lint(src.replace('for k in loss.keys():', 'for k in loss.keys():\n    loss = loss_fn(td)'), 'HR013').length, 1, 'a graph built in the loop');
    const parts = code(`
import torch
out = model(x)
losses = [out.sum(), out.mean()]
for part in losses:
    torch.autograd.backward(part, retain_graph=True)
`);
    assert.deepEqual(lint(parts, 'HR013'), []);
    assert.equal(lint(parts.replace('for part in losses:', 'for part in losses:\n    out = model(x)\n    part = out.sum()'), 'HR013').length, 1, 'rebuilt in the loop');
    // accelerate: what is back-propagated is the argument (built in the loop here), not the accelerator.
    const accel = code(`
import torch
for batch in loader:
    loss = model(batch).sum()
    accelerator.backward(loss, retain_graph=True)
    optimizer.step()
`);
    assert.equal(lint(accel, 'HR013').length, 1);
  });
});
