import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { lintText, mayHaveFilePragma } from '../../extension/src/core/lint/lint';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';
import { code, fixed, lintWith, loadParser, pythonFiles } from './lintHelpers';

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);

describe('lint: dataflow rules (HR001, HR002, HR004) and the corpora’s traps', () => {
  before(async () => {
    parser = await loadParser();
  });

  describe('HR001 accumulate-grad-history', () => {
    const evalLoop = code(`
import torch

def evaluate(model, loader, criterion):
    total_loss = 0
    for x, y in loader:
        out = model(x)
        loss = criterion(out, y)
        total_loss += loss  # running sum
    return total_loss / len(loader)
`);

    it('an eval loop without no_grad keeps whole graphs: an error, with .item() and .detach() fixes', () => {
      const [f, ...rest] = lint(evalLoop, 'HR001');
      assert.equal(rest.length, 0);
      assert.equal(f!.severity, 'error');
      assert.equal(f!.start.line, 7);
      assert.match(f!.message, /`total_loss` accumulates `loss`/);
      // The statement, and the loop it repeats in (its last line is the statement's).
      assert.deepEqual(f!.evidence, { line: 7, loopLine: 4, loopEndLine: 7, name: 'total_loss' });
      assert.equal(fixed(evalLoop, f!), evalLoop.replace('total_loss += loss  #', 'total_loss += loss.item()  #'));
      assert.equal(fixed(evalLoop, f!, 1), evalLoop.replace('total_loss += loss  #', 'total_loss += loss.detach()  #'));
      assert.equal(f!.fixes[0]!.preferred, true);
    });

    it('comparisons and indices carry no graph (the catalog trap): torch.eq(...).sum(), the indices of torch.max', () => {
      const src = code(`
import torch

def evaluate(model, loader):
    correct_sum = 0
    hits = 0
    for x, labels in loader:
        outputs = model(x)
        _, predicts = torch.max(outputs, 1)
        correct_sum += torch.eq(predicts, labels).sum()
        hits += outputs.argmax(1).eq(labels).sum()
    return correct_sum, hits
`);
      assert.deepEqual(lint(src, 'HR001'), []);
      // The values half of torch.max still carries the graph.
      const values = src.replace('_, predicts = torch.max(outputs, 1)', 'best, predicts = torch.max(outputs, 1)').replace('hits += outputs.argmax(1).eq(labels).sum()', 'hits += best.sum()');
      const [f, ...rest] = lint(values, 'HR001');
      assert.equal(rest.length, 0);
      assert.match(f!.message, /`hits` accumulates/);
    });

    it('right after backward() only the history grows: a warning', () => {
      const src = code(`
import torch
import torch.nn.functional as F
running = 0.0
for batch in train_loader:
    optimizer.zero_grad()
    loss = F.cross_entropy(model(batch), batch.y)
    loss.backward()
    optimizer.step()
    running += loss
`);
      const [f] = lint(src, 'HR001');
      assert.equal(f?.severity, 'warning');
      assert.match(f!.message, /already freed its saved tensors/);
    });

    it('rewrites only the tensor in `acc[k] += v * s`, and `acc = acc + v`', () => {
      const src = code(`
import torch
totals = {}
acc = 0
for x in loader:
    loss = crit(net(x), x)
    totals["ce"] += loss * x.size(0)
    acc = acc + loss
`);
      const fs = lint(src, 'HR001');
      assert.equal(fs.length, 2);
      assert.equal(fixed(src, fs[0]!), src.replace('+= loss * x', '+= loss.item() * x'));
      assert.equal(fixed(src, fs[1]!), src.replace('acc + loss', 'acc + loss.item()'));
    });

    it('catches the SR-GNN shape: the loss returned by the model, a method on it', () => {
      const src = code(`
import torch
def train_test(model, train_data):
    total_loss = 0.0
    for i, j in zip(slices, np.arange(len(slices))):
        model.optimizer.zero_grad()
        targets, scores = forward(model, i, train_data)
        loss = model.loss_function(scores, targets - 1)
        loss.backward()
        model.optimizer.step()
        total_loss += loss
`);
      assert.equal(lint(src, 'HR001').length, 1);
    });

    const negatives: [string, string][] = [
      ['.item() already', 'total_loss += loss.item()'],
      ['float()', 'total_loss += float(loss)'],
      ['.detach()', 'total_loss += loss.detach()'],
      ['a comparison count', 'correct += (out.argmax(1) == y).sum()'],
      ['len()', 'seen += len(y)'],
    ];
    for (const [why, line] of negatives) {
      it(`no finding for ${why}`, () => {
        const src = code(`
import torch
total_loss = 0
correct = 0
seen = 0
for x, y in loader:
    out = model(x)
    loss = criterion(out, y)
    ${line}
`);
        assert.deepEqual(lint(src, 'HR001'), []);
      });
    }

    it('no finding under torch.no_grad (with, parenthesized with, decorator, alias)', () => {
      for (const wrap of [
        (b: string) => `with torch.no_grad():\n${b}`,
        (b: string) => `with (torch.no_grad(), open("f") as fh):\n${b}`,
        (b: string) => `with torch.inference_mode():\n${b}`,
      ]) {
        const body = '    for x, y in loader:\n        loss = criterion(model(x), y)\n        total += loss\n';
        const src = `import torch\ntotal = 0\n${wrap(body)}`;
        assert.deepEqual(lint(src, 'HR001'), [], src);
      }
      const dec = code(`
import torch as T
@T.no_grad()
def evaluate(model, loader):
    total = 0
    for x, y in loader:
        total += criterion(model(x), y)
    return total
`);
      assert.deepEqual(lint(dec, 'HR001'), []);
    });

    it('trap: torchtune resets running_loss every optimizer step (bounded)', () => {
      const src = code(`
import torch
running_loss = 0
for idx, batch in enumerate(dataloader):
    current_loss = self._loss_step(batch) * current_num_tokens
    running_loss += current_loss
    current_loss.backward()
    if (idx + 1) % self._gradient_accumulation_steps == 0:
        self._optimizer.step()
        self._optimizer.zero_grad(set_to_none=True)
        running_loss = 0
`);
      assert.deepEqual(lint(src, 'HR001'), []);
    });

    it('trap: an intra-step sum over layers that is back-propagated', () => {
      const src = code(`
import torch
def step(model, x):
    total = 0
    for layer_out in model(x):
        total += criterion(layer_out, x)
    total.backward()
`);
      assert.deepEqual(lint(src, 'HR001'), []);
    });

    it('trap: code that does not import torch (TensorFlow, NumPy)', () => {
      const src = 'import tensorflow as tf\ntotal_loss = 0\nfor x, y in loader:\n    loss = model(x)\n    total_loss += loss\n';
      assert.deepEqual(lint(src), []);
    });

    it('suppressions: a line pragma, a file pragma, and a rule turned off', () => {
      const base = evalLoop;
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
      const texts = ['ignore-file', 'xignore-file', 'ignore-fil', '-file', 'ignor-file', 'ignore--file', 'abc-file ignore-file', '-file-file-fileignore-file', '', 'ignore-file-file', '# headroom: ignore-file[HR001]'];
      for (const f of pythonFiles(ROOT)) texts.push(readFileSync(f, 'utf8'));
      // Real files with a pragma in the middle, too.
      for (const t of texts.slice(-20)) texts.push(`${t.slice(0, t.length >> 1)}\n# headroom: ignore-file\n${t.slice(t.length >> 1)}`);
      for (const t of texts) assert.equal(mayHaveFilePragma(t), t.includes('ignore-file'), t.slice(0, 40));
      assert.ok(texts.filter((t) => t.includes('ignore-file')).length >= 26 && texts.filter((t) => !t.includes('ignore-file')).length >= 100, 'both answers are exercised');
    });

    it('a syntax error elsewhere leaves the rest of the file linted', () => {
      const src = evalLoop + '\ndef broken(:\n    pass\n';
      const r = lintText(parser, src);
      assert.equal(r.broken, true);
      assert.equal(r.findings.filter((f) => f.rule === 'HR001').length, 1);
    });
  });

  describe('HR002 store-grad-tensor-in-container', () => {
    it('losses.append(loss) in a training loop: .item() for a loss, .detach() for other tensors', () => {
      const src = code(`
import torch
losses, outs = [], []
for x, y in loader:
    out = model(x)
    loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    losses.append(loss)
    outs.append(out)
`);
      const fs = lint(src, 'HR002');
      assert.deepEqual(fs.map((f) => f.start.line), [7, 8]);
      assert.equal(fixed(src, fs[0]!), src.replace('losses.append(loss)', 'losses.append(loss.item())'));
      assert.equal(fixed(src, fs[1]!), src.replace('outs.append(out)', 'outs.append(out.detach())'));
    });

    it('no finding for detached values, a list that is back-propagated, or a list reset each step', () => {
      const src = code(`
import torch
kept, summed = [], []
for x, y in loader:
    loss = criterion(model(x), y)
    kept.append(loss.detach())
    summed.append(loss)
    step_losses = []
    step_losses.append(loss)
torch.stack(summed).sum().backward()
`);
      assert.deepEqual(lint(src, 'HR002'), []);
    });

    it('chunks of one result joined after the loop are not kept across steps (tiled decoding, micro-batches); a loader or a training loop still is', () => {
      // diffusers' tiled encoders and trl's micro-batch log-probs: torch.cat / torch.stack right after.
      const chunks = code(`
import torch as th
def encode(self, x):
    h = [self.encoder(x[:, :, :1])]
    for i in range(1, x.shape[2], self.frames_batch_size):
        h.append(self.encoder(x[:, :, i : i + self.frames_batch_size]))
    return th.cat(h, dim=2)

def logps(self, model, batch, num_steps):
    aux = []
    for i in range(num_steps):
        outputs = model(batch[i])
        aux.append(outputs.aux_loss)
    return th.stack(aux).mean()
`);
      assert.deepEqual(lint(chunks, 'HR002'), []);
      const kept = code(`
import torch as th
def predict(model, loader):
    preds = []
    for x in loader:
        preds.append(model(x))
    return th.cat(preds)

def train(model, loader):
    outs = []
    for x, y in loader:
        out = model(x)
        criterion(out, y).backward()
        outs.append(out)
    return th.cat(outs)
`);
      assert.deepEqual(lint(kept, 'HR002').map((f) => f.start.line), [4, 12]);
    });
  });

  describe('HR004 eval-loop-without-no-grad', () => {
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

    it('HR001 on a part of a loss that is back-propagated: a warning (backward freed what the parts share), not an error', () => {
      // dgl's NGCF: batch_loss = mf_loss + emb_loss, and batch_loss.backward().
      const src = code(`
import torch
for epoch in range(epochs):
    loss, mf_loss = 0.0, 0.0
    for idx in range(n_batch):
        u, p, n = model(g, users, pos, neg)
        batch_loss, batch_mf_loss, batch_emb_loss = model.create_bpr_loss(u, p, n)
        optimizer.zero_grad()
        batch_loss.backward()
        optimizer.step()
        loss += batch_loss
        mf_loss += batch_mf_loss
`);
      assert.deepEqual(lint(src, 'HR001').map((f) => [f.start.line, f.severity]), [[9, 'warning'], [10, 'warning']]);
      // Not unpacked with what is back-propagated: nothing freed its saved tensors, an error as before.
      const apart = src.replace('batch_loss, batch_mf_loss, batch_emb_loss = model.create_bpr_loss(u, p, n)', 'batch_loss = model.create_bpr_loss(u, p, n)\n        batch_mf_loss, batch_emb_loss = model.part_losses(u, p, n)');
      assert.deepEqual(lint(apart, 'HR001').map((f) => [f.start.line, f.severity]), [[10, 'warning'], [11, 'error']]);
    });

    it('HR001 in an eval loop over `data`, and through `loss, out = model(…)` unpacking, as errors', () => {
      const ev = code(`
import torch
def evaluate(model, criterion, data):
    epoch_loss = 0.0
    val_loss = 0.0
    for d in data:
        loss = criterion(model(d.text), d.label)
        epoch_loss += loss
        loss2, output = model(d.text, d.label)
        val_loss += loss2
    return epoch_loss, val_loss
`);
      const fs = lint(ev).filter((f) => f.rule === 'HR001');
      assert.deepEqual(fs.map((f) => [f.start.line, f.severity]), [[6, 'error'], [8, 'error']]);
      assert.deepEqual(lint(ev.replace('loss2, output = model(d.text, d.label)', 'loss2, output = 0.0, None'), 'HR001').map((f) => f.start.line), [6]);
      // fairseq's criteria: (loss, sample_size, logging_output); only the loss carries a graph.
      const fair = ev.replace('loss2, output = model(d.text, d.label)\n        val_loss += loss2', 'loss2, sample_size, logging_output = criterion(model, d)\n        val_loss += sample_size');
      assert.deepEqual(lint(fair, 'HR001').map((f) => f.start.line), [6]);
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

  describe('traps found in the corpora', () => {
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
});
