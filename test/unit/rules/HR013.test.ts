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

  it("HR013: not in a loop over the parts of a graph built before it, where each pass goes through the same graph again (torchrl's loss tests)", () => {
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
    assert.deepEqual(
      lint(src.replace('for k in loss.keys():', 'for k in loss.keys():\n    loss = loss_fn(td)'), 'HR013').length,
      1,
      'a graph built in the loop',
    );
    const parts = code(`
import torch
out = model(x)
losses = [out.sum(), out.mean()]
for part in losses:
    torch.autograd.backward(part, retain_graph=True)
`);
    assert.deepEqual(lint(parts, 'HR013'), []);
    assert.equal(
      lint(parts.replace('for part in losses:', 'for part in losses:\n    out = model(x)\n    part = out.sum()'), 'HR013').length,
      1,
      'rebuilt in the loop',
    );
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

  it('HR013: in a function that runs once per step (a `*_step` method, an optimizer closure, a helper a loop calls), unless its caller goes on to a second backward', () => {
    const helper = code(`
import torch
class Attack:
    def _train_step(self, x, y):
        loss = self._loss(x, y)
        loss.backward(retain_graph=True)
        self.opt.step()

def closure_for(model, x):
    def closure():
        opt.zero_grad()
        d = dist(model(x))
        d.backward(retain_graph=True)
        return d
    return closure

def update(loss):
    loss.backward(retain_graph=True)

def run(model, loader):
    for x in loader:
        update(model(x).sum())

def reverse(layers, y, dy):
    for layer in layers[::-1]:
        y, dy = layer.backward_pass(y, dy)

class Block:
    def backward_pass(self, y, dy):
        g = self.G(y)
        g.backward(dy, retain_graph=True)
        return y - g, dy
`);
    assert.deepEqual(
      lint(helper, 'HR013').map((f) => f.start.line),
      [4, 11, 16],
    );
    const gan = code(`
import torch
class Trainer:
    def _update_d(self, out, y):
        loss_d = self.crit_d(out, y)
        loss_d.backward(retain_graph=True)
        self.opt_d.step()

    def train(self, loader):
        for x, y in loader:
            out = self.netG(x)
            self._update_d(out, y)
            loss_g = self.crit_g(out, y)
            loss_g.backward()
`);
    assert.deepEqual(lint(gan, 'HR013'), [], 'the generator goes through the retained graph after it');
  });
});
