import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { isModelCall, MAY_CALL_MODEL } from '../../../extension/src/core/lint/analysis/calls';
import { rootOf } from '../../../extension/src/core/lint/syntax/syntaxTree';
import { ROOT } from '../helpers';
import { code, describeRule, fixed, pythonFiles } from '../lintHelpers';

// HR014's tests: its page (docs/rules/HR014.md) says what it finds and when it stays silent.

describeRule('HR014 rnn-hidden-not-detached', (lint, parser) => {
  it('HR014: a hidden state fed back without detach; fine once detached', () => {
    const src = code(`
import torch
hidden = model.init_hidden(bsz)
for data, targets in batches:
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
`);
    const [f] = lint(src, 'HR014');
    assert.ok(f);
    assert.equal(
      fixed(src, f),
      src.replace(
        '    output, hidden = model(data, hidden)',
        '    hidden = hidden.detach() if isinstance(hidden, torch.Tensor) else tuple(t.detach() for t in hidden)\n    output, hidden = model(data, hidden)',
      ),
    );
    assert.deepEqual(lint(fixed(src, f), 'HR014'), []);
    // A forward-only loop (a rollout, generation) keeps the whole history too, unless grad is off.
    const rollout = code(`
import torch
hidden = model.init_hidden(bsz)
outs = []
for data in batches:
    output, hidden = model(data, hidden)
    outs.append(output.argmax(-1))
`);
    assert.equal(lint(rollout, 'HR014').length, 1);
    assert.deepEqual(
      lint(
        rollout.replace('for data in batches:', 'with torch.no_grad():\n  for data in batches:').replace(/\n    /g, '\n      '),
        'HR014',
      ),
      [],
    );
  });

  it('HR014: a hidden state detached in place (detach_(), on it or on its parts) is bounded too', () => {
    // pytorch/examples' distributed/rpc/rnn/main.py detaches the two halves of an LSTM state in place.
    const src = code(`
import torch
hidden = model.init_hidden(bsz)
for data, target in batches:
    DETACH
    output, hidden = model(data, hidden)
    loss = criterion(output, target)
    loss.backward()
    opt.step()
`);
    for (const d of ['hidden[0].detach_()\n    hidden[1].detach_()', 'hidden.detach_()', 'hidden[ 0 ].detach_()'])
      assert.deepEqual(lint(src.replace('DETACH', d), 'HR014'), [], d);
    // After the step (the output detached for the next one) counts as well.
    assert.deepEqual(
      lint(src.replace('    DETACH\n', '').replace('    opt.step()\n', '    opt.step()\n    hidden.detach_()\n'), 'HR014'),
      [],
    );
    // Another name's detach_, or a copy's, leaves the chain: still flagged.
    for (const d of ['other.detach_()', 'hidden_copy.detach_()', 'hidden[0].detach()', 'x = hidden[0].detach_'])
      assert.equal(lint(src.replace('DETACH', d), 'HR014').length, 1, d);
  });

  it('HR014 reads only loop bodies whose text may call a model: every call isModelCall accepts, in real code, is one', () => {
    // MAY_CALL_MODEL is a text test run before any node of a body is read; a call it missed would be a lost finding.
    const files = [...pythonFiles(join(ROOT, 'test')), ...pythonFiles(join(ROOT, 'extension', 'agent'))];
    let n = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const tree = parser().parse(text);
      for (const c of rootOf(tree, text).descendantsOfType('call')) {
        const fn = c!.childForFieldName('function');
        const args = c!.childForFieldName('arguments');
        if (!fn || !args || !isModelCall(fn.text)) continue;
        n++;
        assert.match(text.slice(c!.startIndex, args.startIndex + 1), MAY_CALL_MODEL, f);
      }
      tree.delete();
    }
    // The lint corpus's files are among them: real model calls of many shapes.
    assert.ok(n > 100, `${n} model calls`);
    // Shapes a call can take between its callee and `(`.
    for (const t of [
      'self.model["g"](z)',
      'self.nets[k] (x)',
      'net \\\n (x)',
      'f(model  # why\n (x))',
      'x . forward(y)',
      'module.validation_step(b)',
    ])
      assert.match(t, MAY_CALL_MODEL);
  });

  it('HR014: the state alone fed back (`h = self.rssm.recurrent_model(z, a, h)`) in a forward-only rollout, and an input changed in place (`inp.data.fill_(i)`); not when the rollout is trained on', () => {
    const rollout = code(`
import torch
class Agent:
    def interact(self, env):
        z, h = self.init_state()
        done = False
        while not done:
            h = self.rssm.recurrent_model(z, a, h)
            _, z = self.rssm.representation_model(e, h)
            a = self.actor(z, h).detach()
            obs, done = env.step(a)

    def generate_text(self, n):
        hidden = self.init_hidden(1)
        inp = torch.zeros(1, 1).long()
        for i in range(n):
            out, hidden = self.forward(inp, hidden)
            inp.data.fill_(out.argmax())
`);
    assert.deepEqual(
      lint(rollout, 'HR014').map((f) => f.start.line),
      [6, 15],
    );
    const trained = code(`
import torch
class Agent:
    def imagine(self, z, h):
        for t in range(self.horizon):
            a = self.actor(z, h)
            h = self.rssm.recurrent_model(z, a, h)
            _, z = self.rssm.transition_model(h)
            self.infos.append(z)
        self.update(self.infos)

    def learn(self, data):
        h = self.init(len(data))
        for t in range(1, self.batch_length):
            h = self.rssm.recurrent_model(z, data.action[:, t - 1], h)
            _, z = self.rssm.representation_model(data.obs[:, t], h)
        loss = self.loss(z)
        loss.backward()
`);
    assert.deepEqual(lint(trained, 'HR014'), [], 'states kept for a later update, and a loop over time inside one batch');
  });
});
