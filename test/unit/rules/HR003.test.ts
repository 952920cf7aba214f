import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR003's tests: its page (docs/rules/HR003.md) says what it finds and when it stays silent.

describeRule('HR003 outputs-retained-on-gpu', (lint) => {
  it('HR003 is off unless asked for; then it moves collected outputs to the host', () => {
    const src = code(`
import torch
preds = []
with torch.no_grad():
    for x in loader:
        out = model(x)
        preds.append(out)
`);
    assert.deepEqual(
      lint(src).filter((f) => f.rule === 'HR003'),
      [],
    );
    const [f] = lint(src, 'HR003');
    assert.equal(f?.severity, 'info');
    assert.equal(fixed(src, f!), src.replace('preds.append(out)', 'preds.append(out.detach().cpu())'));
    assert.deepEqual(lint(src.replace('preds.append(out)', 'preds.append(out.cpu())'), 'HR003'), []);
    // Rebound to a host copy before it is kept (a time-series repository's test loop).
    assert.deepEqual(
      lint(src.replace('        preds.append(out)', '        out = out[:, -24:].cpu().numpy()\n        preds.append(out)'), 'HR003'),
      [],
    );
    // Loops over `val_dl` or a tqdm `pbar` are data loops too (real code names them so).
    for (const it of ['val_dl', 'pbar']) assert.equal(lint(src.replace('for x in loader:', `for x in ${it}:`), 'HR003').length, 1, it);
    assert.equal(lint(src.replace('for x in loader:', 'for x in names:'), 'HR003').length, 0);
  });

  it('the model call appended as it is, or through attributes, methods and indexing that keep it on the device', () => {
    const at = (append: string) =>
      lint(
        code(`
import torch
preds = []
with torch.no_grad():
    for x in loader:
        out = model(x)
        ${append}
`),
        'HR003',
      ).length;
    for (const kept of [
      'preds.append(model(x))',
      'preds.append(self.model(x).logits)',
      'preds.append(model(x)[0].softmax(-1))',
      'preds.append(out.logits.detach())',
    ])
      assert.equal(at(kept), 1, kept);
    for (const host of [
      'preds.append(model(x).cpu())',
      'preds.append(model(x).argmax(-1).tolist())',
      'preds.append(x)',
      'preds.append(len(out))',
      'preds.append(torch.zeros(1))',
    ])
      assert.equal(at(host), 0, host);
  });
});
