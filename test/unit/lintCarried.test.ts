import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CarriedFacts } from '../../extension/src/core/lint/analysis/carried';
import { lintText } from '../../extension/src/core/lint/lint';
import { LintSession } from '../../extension/src/core/lint/session';
import type { TextChange } from '../../extension/src/core/lint/session';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { SyntaxNode } from '../../extension/src/core/lint/syntax/syntaxNode';
import type { Finding } from '../../extension/src/core/lint/types';
import { code, loadParser } from './lintHelpers';

// Facts of the functions an edit did not touch, carried from one re-lint to the next (analysis/carried.ts).
let parser: PythonParser;

const change = (text: string, a: number, b: number, ins: string): TextChange => {
  const pos = (i: number) => ({ line: text.slice(0, i).split('\n').length - 1, col: i - (text.lastIndexOf('\n', i - 1) + 1) });
  return { offset: a, length: b - a, text: ins, start: pos(a), end: pos(b) };
};
const key = (f: Finding) => `${f.rule}@${f.startIndex}:${f.severity}:${f.message}`;

/** A stand-in for a function node: where it starts and its text. */
const fn = (startIndex: number, text: string) => ({ startIndex, text }) as unknown as SyntaxNode;

describe('facts carried between re-lints', () => {
  before(async () => {
    parser = await loadParser();
  });

  it('moves a function’s facts through edits before it, and drops them when an edit touches it or its text differs', () => {
    const facts = new CarriedFacts();
    facts.set(fn(100, 'def f():\n    return x\n'), 'graph', { returnsGraph: true });
    facts.shift(10, 0, 3);
    assert.deepEqual(facts.get(fn(103, 'def f():\n    return x\n'), 'graph'), { value: { returnsGraph: true } });
    assert.equal(facts.get(fn(100, 'def f():\n    return x\n'), 'graph'), undefined, 'at its old place');
    assert.equal(facts.get(fn(103, 'def f():\n    return y\n'), 'graph'), undefined, 'another text');
    facts.shift(500, 4, 0);
    assert.ok(facts.get(fn(103, 'def f():\n    return x\n'), 'graph'), 'an edit after it leaves it');
    facts.shift(110, 1, 1);
    assert.equal(facts.get(fn(103, 'def f():\n    return x\n'), 'graph'), undefined, 'an edit inside it drops it');
  });

  it('a session reuses a helper’s summary while editing elsewhere, and still equals a full lint when the helper changes', () => {
    let text = code(`
import torch

def step_fn(model, x, y):
    loss = criterion(model(x), y)
    return loss

def train_all(model, dl):
    total = 0
    for x, y in dl:
        total += step_fn(model, x, y)
    return total

def other(a):
    b = a + 1
    return b
`);
    const s = new LintSession(parser);
    const same = () => assert.deepEqual(s.update(text, [c]).map(key), lintText(parser, text).findings.map(key));
    let c: TextChange;
    s.update(text);
    // Typing in train_all: step_fn's summary is carried over, not computed again.
    const facts = (s as unknown as { facts: CarriedFacts }).facts;
    const hits = facts.hits;
    for (const ins of ['# a', '# b']) {
      const at = text.indexOf('    return total');
      c = change(text, at, at, `    ${ins}\n`);
      text = text.slice(0, at) + `    ${ins}\n` + text.slice(at);
      same();
    }
    assert.ok(facts.hits > hits, 'the helper’s facts were reused');
    assert.ok(
      lintText(parser, text).findings.some((f) => f.rule === 'HR001'),
      'HR001 on the sum of step_fn’s losses',
    );
    // The helper now returns a number: the finding in its caller goes, as in a full lint.
    const at = text.indexOf('return loss') + 'return loss'.length;
    c = change(text, at, at, '.item()');
    text = text.slice(0, at) + '.item()' + text.slice(at);
    same();
    assert.ok(!lintText(parser, text).findings.some((f) => f.rule === 'HR001'));
    // And back, then an edit in an unrelated function: the caller's finding is back and stays.
    c = change(text, at, at + '.item()'.length, '');
    text = text.slice(0, at) + text.slice(at + '.item()'.length);
    same();
    const at2 = text.indexOf('b = a + 1');
    c = change(text, at2, at2, '# c\n    ');
    text = text.slice(0, at2) + '# c\n    ' + text.slice(at2);
    same();
    assert.ok(lintText(parser, text).findings.some((f) => f.rule === 'HR001'));
    s.dispose();
  });

  it('an edit in another function that a finding reads (a later backward in a caller, a training_epoch_end added) re-lints the finding, as a full lint does', () => {
    let text = code(`
import torch
import pytorch_lightning as pl

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

class Model(pl.LightningModule):
    def training_step(self, batch, i):
        loss = self.crit(self(batch), batch)
        aux = loss * 2
        return {"loss": loss, "aux": aux}

    def configure_optimizers(self):
        return None
`);
    const s = new LintSession(parser);
    const rules = (fs: Finding[]) =>
      fs
        .map((f) => f.rule)
        .filter((r) => r === 'HR013' || r === 'HR002')
        .sort();
    assert.deepEqual(rules(s.update(text)), ['HR013']);
    const edit = (at: number, ins: string) => {
      const c = change(text, at, at, ins);
      text = text.slice(0, at) + ins + text.slice(at);
      const inc = s.update(text, [c]);
      assert.deepEqual(inc.map(key), lintText(parser, text).findings.map(key));
      return rules(inc);
    };
    // The generator's backward after the call: retain_graph is what it needs.
    const at = text.indexOf('loss_g = self.crit_g(out, y)') + 'loss_g = self.crit_g(out, y)'.length;
    assert.deepEqual(edit(at, '\n            loss_g.backward()'), []);
    // training_epoch_end added in another method: Lightning keeps every training_step output now.
    const at2 = text.indexOf('    def configure_optimizers');
    assert.deepEqual(edit(at2, '    def training_epoch_end(self, outputs):\n        pass\n\n'), ['HR002']);
    s.dispose();
  });
});
