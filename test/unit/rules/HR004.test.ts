import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR004's tests: its page (docs/rules/HR004.md) says what it finds and when it stays silent.

describeRule('HR004 eval-loop-without-no-grad', (lint) => {
  const src = code(`
import torch

def validate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct
`);

  it('warns, and wraps the loop in no_grad keeping its lines and comments', () => {
    const [f, ...rest] = lint(src, 'HR004');
    assert.equal(rest.length, 0);
    assert.equal(f!.severity, 'warning');
    assert.equal(f!.start.line, 5);
    assert.equal(
      fixed(src, f!),
      src.replace('    for x, y in loader:\n        out = model(x)\n        correct += (out.argmax(1) == y).sum().item()\n', '    with torch.no_grad():\n        for x, y in loader:\n            out = model(x)\n            correct += (out.argmax(1) == y).sum().item()\n'),
    );
    assert.equal(fixed(src, f!, 1), src.replace('def validate', '@torch.no_grad()\ndef validate'));
  });

  it('is an error with HR001 on the same loop; silent under no_grad, in Lightning steps and in training loops', () => {
    const leak = src.replace('correct += (out.argmax(1) == y).sum().item()', 'correct += criterion(out, y)');
    assert.equal(lint(leak).find((f) => f.rule === 'HR004')?.severity, 'error');
    assert.deepEqual(lint(src.replace('def validate(model, loader):', '@torch.no_grad()\ndef validate(model, loader):'), 'HR004'), []);
    assert.deepEqual(lint(src.replace('def validate', 'def validation_step'), 'HR004'), []);
    assert.deepEqual(lint(src.replace('        out = model(x)', '        out = model(x)\n        out.sum().backward()'), 'HR004'), []);
  });

  it('finds eval loops inside an epoch loop and in notebook-style module code, after .eval() or .train(False), not after .train()', () => {
    // jetbot's collision-avoidance notebook: train and test loops inside one epoch loop, at module level.
    const epochs = code(`
import torch
for epoch in range(30):
    model.train()
    for images, labels in train_loader:
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
    model.eval()
    for images, labels in test_loader:
        outputs = model(images)
`);
    assert.deepEqual(lint(epochs, 'HR004').map((f) => f.start.line), [8]);
    const inFunction = code(`
import torch
def fit(model, loader):
    for epoch in range(3):
        model.train(False)
        for x in loader:
            out = model(x)
        model.train()
        for x in loader:
            out = model(x)
`);
    assert.deepEqual(lint(inFunction, 'HR004').map((f) => f.start.line), [4]);
    assert.equal(lint(inFunction, 'HR004')[0]!.fixes.length, 2, 'wrap, or decorate the function');
    assert.equal(lint(epochs, 'HR004')[0]!.fixes.length, 1, 'module code: wrap only');
  });

  it('a torch.Generator is no model (diffusers tests seed one per pass)', () => {
    const seeded = src.replace('        out = model(x)\n', '        g = torch.Generator("cpu").manual_seed(0)\n        out = x.flip(0)\n');
    assert.deepEqual(lint(seeded, 'HR004'), []);
    assert.equal(lint(seeded.replace('out = x.flip(0)', 'out = generator(x)'), 'HR004').length, 1);
  });
});
