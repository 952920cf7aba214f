import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { lintText, mayHaveFilePragma } from '../../extension/src/core/lint/lint';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';
import { code, EVAL_LOOP, lintWith, loadParser, pythonFiles } from './lintHelpers';

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);

describe('lint: the driver (suppressions, files it skips, broken code) and the corpora’s traps', () => {
  before(async () => {
    parser = await loadParser();
  });

  it('trap: code that does not import torch (TensorFlow, NumPy)', () => {
    const src = 'import tensorflow as tf\ntotal_loss = 0\nfor x, y in loader:\n    loss = model(x)\n    total_loss += loss\n';
    assert.deepEqual(lint(src), []);
  });

  it('suppressions: a line pragma, a file pragma, and a rule turned off', () => {
    const base = EVAL_LOOP;
    const rules = (src: string) => lint(src).map((f) => f.rule);
    assert.deepEqual(rules(base), ['HR004', 'HR001']);
    assert.deepEqual(rules(base.replace('# running sum', '# headroom: ignore[HR001]')), ['HR004']);
    assert.deepEqual(rules(base.replace('# running sum', '# headroom: ignore')), ['HR004']);
    assert.deepEqual(rules(base.replace('# running sum', '# headroom: ignore[HR005]')), ['HR004', 'HR001']);
    assert.deepEqual(rules(`# headroom: ignore-file[HR001, HR004]\n${base}`), []);
    assert.deepEqual(lintText(parser, base, { severity: { HR001: 'off', HR004: 'off' } }).findings, []);
    assert.equal(lintText(parser, base, { select: ['HR001'], severity: { HR001: 'info' } }).findings[0]!.severity, 'info');
  });

  it('the quick search for a file pragma finds what includes("ignore-file") finds', () => {
    const texts = [
      'ignore-file',
      'xignore-file',
      'ignore-fil',
      '-file',
      'ignor-file',
      'ignore--file',
      'abc-file ignore-file',
      '-file-file-fileignore-file',
      '',
      'ignore-file-file',
      '# headroom: ignore-file[HR001]',
    ];
    for (const f of pythonFiles(ROOT)) texts.push(readFileSync(f, 'utf8'));
    // Real files with a pragma in the middle, too.
    for (const t of texts.slice(-20)) texts.push(`${t.slice(0, t.length >> 1)}\n# headroom: ignore-file\n${t.slice(t.length >> 1)}`);
    for (const t of texts) assert.equal(mayHaveFilePragma(t), t.includes('ignore-file'), t.slice(0, 40));
    assert.ok(
      texts.filter((t) => t.includes('ignore-file')).length >= 26 && texts.filter((t) => !t.includes('ignore-file')).length >= 100,
      'both answers are exercised',
    );
  });

  it('a syntax error elsewhere leaves the rest of the file linted', () => {
    const src = EVAL_LOOP + '\ndef broken(:\n    pass\n';
    const r = lintText(parser, src);
    assert.equal(r.broken, true);
    assert.equal(r.findings.filter((f) => f.rule === 'HR001').length, 1);
  });

  it('a loop over micro-batches inside forward() is not a step loop (pytorch/examples rpc pipeline)', () => {
    const src = code(`
import torch
class Pipe(torch.nn.Module):
    def forward(self, xs):
        outs = []
        for x in iter(xs.split(4)):
            outs.append(self.p2.forward(x))
        return torch.cat(outs)
`);
    assert.deepEqual(lint(src), []);
  });

  it('no_grad entered through an ExitStack, a project wrapper decorator, inference_mode inside the loop (detectron2, yolov5, accelerate)', () => {
    const stack = code(`
import torch
from contextlib import ExitStack
def inference_on_dataset(model, loader):
    model.eval()
    with ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        for inputs in loader:
            outputs = model(inputs)
`);
    assert.deepEqual(lint(stack, 'HR004'), []);
    const wrapper = code(`
import torch
from utils.torch_utils import smart_inference_mode
@smart_inference_mode()
def run(model, dataloader):
    model.eval()
    for im in dataloader:
        preds = model(im)
`);
    assert.deepEqual(lint(wrapper, 'HR004'), []);
    const inner = code(`
import torch
def evaluation_loop(model, loader):
    model.eval()
    losses = []
    for batch in loader:
        with torch.inference_mode():
            outputs = model(**batch)
        loss = outputs.loss
        losses.append(loss)
`);
    assert.deepEqual(lint(inner), []);
  });

  it('a model class being built is not a forward pass, and test_* functions are unit tests (accelerate)', () => {
    const src = code(`
import torch
def test_state_dict(self):
    for model_cls in (A, B):
        model = model_cls()
        model.eval()
        out = model(x)
`);
    assert.deepEqual(lint(src, 'HR004'), []);
  });
});
