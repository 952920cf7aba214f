import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { definitionSites } from '../../extension/src/core/lint/analysis/summaries';
import { forgetRoot, rootOf } from '../../extension/src/core/lint/syntax/syntaxTree';
import { ROOT } from './helpers';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { code, fixed, lintWith, loadParser, pythonFiles } from './lintHelpers';

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);
const lines = (fs: Finding[]) => fs.map((f) => f.start.line + 1);

// The shapes the labelled corpus missed before: helpers, framework hooks, callers, flag loops.
describe('lint across functions: summaries, hooks, callers', () => {
  before(async () => {
    parser = await loadParser();
  });

  it('a helper that returns the loss makes its caller accumulate a graph; one that returns .item() does not', () => {
    const src = (ret: string) =>
      code(`
import torch
def train_step(model, x, y):
    loss = criterion(model(x), y)
    return ${ret}
def fit(model, loader):
    total = 0
    for x, y in loader:
        total += train_step(model, x, y)
`);
    assert.deepEqual(lines(lint(src('loss'), 'HR001')), [8]);
    assert.deepEqual(lint(src('loss.item()'), 'HR001'), []);
    assert.deepEqual(lint(src('loss.data'), 'HR001'), []);
  });

  it('by position: `log, out = self.step(x)` carries what step returns in each place', () => {
    const src = (second: string) =>
      code(`
import torch
class M(LightningModule):
    def step(self, x):
        out = self.net(x)
        loss = self.loss(out)
        return {"loss": loss}, ${second}
    def training_step(self, batch, i):
        log, out = self.step(batch)
        self.outputs.append(out)
        return log
`);
    assert.deepEqual(lines(lint(src('out'), 'HR002')), [9]);
    assert.deepEqual(lint(src('out.detach()'), 'HR002'), []);
  });

  it('framework per-batch methods: state on self grows with every batch, unless the method empties it or runs without grad', () => {
    const src = (name: string, extra = '') =>
      code(`
import torch
class M(LightningModule):
    def ${name}(self, batch, i):
        loss = self.loss(self(batch))
        self.losses.append(loss)
        self.total += loss${extra}
        return loss
`);
    const fs = lint(src('training_step'));
    assert.deepEqual(fs.map((f) => `${f.rule}:${f.start.line + 1}`).sort(), ['HR001:6', 'HR002:5']);
    assert.equal(
      fixed(src('training_step'), fs.find((f) => f.rule === 'HR002')!),
      src('training_step').replace('append(loss)', 'append(loss.item())'),
    );
    assert.deepEqual(lint(src('validation_step')), []);
    assert.deepEqual(lint(src('training_step', '\n        self.losses.clear()\n        self.total = 0'), 'HR002'), []);
  });

  it('what is back-propagated carries a graph, whatever made it (a base class helper)', () => {
    const src = code(`
import torch
def train_epoch(self):
    epoch_loss = 0
    for batch in self.train_dataloader:
        loss = self._train_step(batch)
        self.accelerator.backward(loss)
        self.optimizer.step()
        epoch_loss += loss
`);
    const fs = lint(src, 'HR001');
    assert.deepEqual(lines(fs), [8]);
    assert.equal(fs[0]!.severity, 'warning');
  });

  it('HR004 through a caller: model.eval() then run(...) with grad on; silent when every caller uses no_grad', () => {
    const src = (call: string) =>
      code(`
import torch
def run(model, dl):
    for x in dl:
        out = model(x)
def main(model, dl):
    model.eval()
    ${call}
`);
    assert.deepEqual(lines(lint(src('run(model, dl)'), 'HR004')), [3]);
    assert.deepEqual(lint(src('with torch.no_grad(): run(model, dl)'), 'HR004'), []);
  });

  it('self.f(...) runs the f of its own class when that class has one (mmengine: a train loop and a val loop each define run_iter)', () => {
    const src = (decorator: string) =>
      code(`
import torch
class TrainLoop:
    def run_iter(self, batch):
        loss = self.model.train_step(batch)
        loss.backward()
class ValLoop:
    def run(self):
        self.model.eval()
        for batch in self.dataloader:
            self.run_iter(batch)
    DECORATOR
    def run_iter(self, batch):
        return self.model.val_step(batch)
`).replace('    DECORATOR\n', decorator);
    // ValLoop's own run_iter runs the model without grad: the loop is fine.
    assert.deepEqual(lint(src('    @torch.no_grad()\n'), 'HR004'), []);
    // With grad on, its run_iter is what the loop runs: reported.
    assert.deepEqual(lines(lint(src(''), 'HR004')), [9]);
    // A class without its own run_iter may run any class's (an inherited one): one of them runs the model with grad on.
    const inherited = code(`
import torch
class Plain:
    def run_iter(self, batch):
        return self.model(batch)
class Quiet:
    @torch.no_grad()
    def run_iter(self, batch):
        return self.model(batch)
class ValLoop(Quiet):
    def run(self):
        self.model.eval()
        for batch in self.dataloader:
            self.run_iter(batch)
`);
    assert.deepEqual(lines(lint(inherited, 'HR004')), [12]);
  });

  it("a helper of the file named like a loss is read from its body, not its name (pytorch_geometric's eval_loss returns a float)", () => {
    const src = (ret: string) =>
      code(`
import torch
import torch.nn.functional as F
def eval_loss(model, loader):
    loss = 0
    for data in loader:
        with torch.no_grad():
            out = model(data)
        loss += F.nll_loss(out, data.y)RET
    return loss / len(loader.dataset)
def cross_validation(model, loader, epochs):
    val_losses = []
    for epoch in range(1, epochs + 1):
        val_losses.append(eval_loss(model, loader))
`).replace('RET', ret);
    assert.deepEqual(lint(src('.item()'), 'HR002'), []);
    // Without .item() (and grad on) it returns a graph: the store is reported.
    assert.deepEqual(lines(lint(src('').replace('        with torch.no_grad():\n            out', '        out'), 'HR002')), [12]);
    // A loss function the file does not define is still read by its name.
    const unknown = code(`
import torch
def cross_validation(model, loader):
    val_losses = []
    for x, y in loader:
        val_losses.append(eval_loss(model(x), y))
`);
    assert.deepEqual(lines(lint(unknown, 'HR002')), [5]);
  });

  it('HR004 on one loop for both phases, switched by a flag: fixed with set_grad_enabled(flag)', () => {
    const src = (wrap: boolean) =>
      code(`
import torch
def iteration(self, epoch, data_loader, train=True):
${wrap ? '    with torch.set_grad_enabled(train):\n    ' : ''}    for i, data in data_loader:
${wrap ? '    ' : ''}        loss = self.criterion(self.model.forward(data), data)
${wrap ? '    ' : ''}        if train:
${wrap ? '    ' : ''}            loss.backward()
${wrap ? '    ' : ''}            self.optim.step()
`);
    const fs = lint(src(false), 'HR004');
    assert.deepEqual(lines(fs), [3]);
    assert.match(fs[0]!.fixes[0]!.title, /set_grad_enabled\(train\)/);
    assert.deepEqual(lint(fixed(src(false), fs[0]!), 'HR004'), []);
    assert.deepEqual(lint(src(true), 'HR004'), []);
  });

  it('models called through methods and containers, helpers that run one, and the data loop is where it is reported', () => {
    const src = code(`
import torch
class T:
    def _eval_step(self, batch):
        y = self.model["generator"](batch)
    def _eval_epoch(self):
        for key in self.model.keys():
            self.model[key].eval()
        for loader in self.loaders:
            for batch in tqdm(loader):
                self._eval_step(batch)
def evaluate(model, dl):
    for x in dl:
        scores = model.predict(x)
`);
    assert.deepEqual(lines(lint(src, 'HR004')), [9, 12]);
  });

  it('HR004 stays silent on a loop whose helper needs gradients (an adversarial attack)', () => {
    const src = code(`
import torch
def attack(model, x, y):
    x.requires_grad_(True)
    loss = criterion(model(x), y)
    loss.backward()
    return x.grad.sign()
def eval_adv(model, test_loader):
    model.eval()
    for x, y in test_loader:
        adv = attack(model, x, y)
`);
    assert.deepEqual(lint(src, 'HR004'), []);
  });

  it("HR004 stays silent on a loop whose helper takes gradients with torch.autograd.grad, over data or not (pytorch_geometric's PRBCD attack)", () => {
    const src = code(`
import torch
class Attack(torch.nn.Module):
    def attack(self, x, labels, epochs):
        self.model.eval()
        for step in range(epochs):
            loss, gradient = self._forward_and_gradient(x, labels)
            self._update(step, gradient)
    def _forward_and_gradient(self, x, labels):
        self.weight.requires_grad = True
        prediction = self.model(x, self.weight)
        loss = self.loss(prediction, labels)
        gradient = GRAD(loss, self.weight)[0]
        return loss, gradient
`);
    for (const grad of ['torch.autograd.grad', 'autograd.grad']) {
      assert.deepEqual(lint(src.replace('GRAD', grad), 'HR004'), [], grad);
      assert.deepEqual(lint(src.replace('GRAD', grad).replace('range(epochs)', 'tqdm(loader)'), 'HR004'), [], `${grad} over data`);
    }
    // A helper that only runs the model, with grad on, is what HR004 is for.
    assert.deepEqual(
      lines(lint(src.replace('        gradient = GRAD(loss, self.weight)[0]\n', '        gradient = None\n'), 'HR004')),
      [5],
    );
  });

  it('HR014 in a generation loop that feeds its output back; not in priming on a given prompt', () => {
    const src = code(`
import torch
def generate(decoder, prime, predict_len):
    hidden = decoder.init_hidden()
    for p in range(len(prime) - 1):
        _, hidden = decoder(prime[p], hidden)
    inp = prime[-1]
    for p in range(predict_len):
        output, hidden = decoder(inp, hidden)
        inp = torch.multinomial(output.exp(), 1)[0]
`);
    assert.deepEqual(lines(lint(src, 'HR014')), [8]);
  });

  it('a lazily initialized buffer filled per batch keeps each graph (pvse), either branch of a conditional counts', () => {
    const src = code(`
import torch
def encode(model, loader, use_gpu):
    embs, caps = None, None
    for i, (x, ids) in enumerate(loader):
        emb, cap = model.forward(x)
        if embs is None:
            embs = torch.zeros(len(loader.dataset), emb.size(1)).cuda()
            caps = torch.zeros(len(loader.dataset), cap.size(1)).cuda()
        embs[ids] = emb if use_gpu else emb.data.cpu().numpy()
        caps[ids] = cap
`);
    assert.deepEqual(lines(lint(src, 'HR002')), [9, 10]);
  });

  it('eval mode switched inside the loop counts; a model built in the loop does not (a test over model classes)', () => {
    const src = (build: string) =>
      code(`
import torch
def run_images(self, images):
    for im in images:
        ${build}
        self.model.eval()
        preds = self.model(im)
`);
    assert.deepEqual(lines(lint(src('self.model = self.model.cuda()'), 'HR004')), [3]);
    assert.deepEqual(lint(src('self.model = build_model()'), 'HR004'), []);
  });

  it('unseen code’s traps: losses kept to back-propagate later one by one (accelerate), an OOM retry that halves the batch (timm)', () => {
    const kept = code(`
import torch
def step_model(model, x, y, accelerator):
    loss = F.mse_loss(model(x), y)
    accelerator.backward(loss)
def test_grads(model, ddp_model, dataloader, accelerator):
    losses = []
    for iteration in range(4):
        x, y = next(iter(dataloader))
        step_model(model, x, y, accelerator)
        loss = F.mse_loss(ddp_model(x), y)
        losses.append(loss)
    for iteration in range(4):
        loss = losses[iteration]
        accelerator.backward(loss)
`);
    assert.deepEqual(lint(kept, 'HR002'), []);
    const retry = code(`
import torch
def validate(args):
    model = create_model(args)
    for x in loader:
        out = model(x)
def run(args, batch_size):
    while batch_size:
        try:
            torch.cuda.empty_cache()
            return validate(args)
        except RuntimeError:
            batch_size //= 2
`);
    assert.deepEqual(
      lint(retry, 'HR005').filter((f) => f.severity !== 'info'),
      [],
    );
  });

  it('a stranger’s file: a chain of 3,000 helpers and mutual recursion lint without a crash', () => {
    const chain = Array.from({ length: 3000 }, (_, i) => `def f${i}(x):\n    return f${i + 1}(x)\n`).join('');
    const src = `import torch\n${chain}def f3000(x):\n    return model(x)\ndef g(x):\n    return h(x)\ndef h(x):\n    return g(x)\nfor x in loader:\n    total += f0(x) + g(x)\n    loss.backward()\n`;
    assert.ok(Array.isArray(lint(src)));
  });

  it("another file's training step: a sum the code calls .item() on is a tensor (a warning); a sum it never does may be of floats", () => {
    const src = (use: string) =>
      code(`
import torch
from trainer import Trainer
def fit(train_util, gen, pbar):
    total_loss = 0
    for i, batch in enumerate(gen):
        losses = train_util.train_step(batch)
        rpn, total = losses
        total_loss += total
        pbar.set_postfix(total=${use})
`);
    const fs = lint(src('total_loss.item() / (i + 1)'), 'HR001');
    assert.deepEqual(lines(fs), [8]);
    assert.equal(fs[0]!.severity, 'warning');
    assert.deepEqual(lint(src('total_loss / (i + 1)'), 'HR001'), [], 'the catalog trap: train_step may return floats');
  });

  it('a helper of the file stores what the loop passes it into a container that outlives the loop (HR002 at the store)', () => {
    const src = (passed: string, kept = 'out') =>
      code(`
import torch
from collections import defaultdict
class Predictor:
    def _accumulate(self, preds, predictions):
        for name, value in preds.items():
            predictions[name].append(${kept})
    def batch_predict(self, batcher):
        self.model.eval()
        predictions = defaultdict(list)
        while not batcher.last_batch():
            batch = batcher.next_batch()
            preds = self.model(batch)
            self._accumulate(${passed}, predictions)
        return predictions
`);
    assert.deepEqual(lines(lint(src('preds', 'value'), 'HR002')), [6]);
    assert.deepEqual(lint(src('preds', 'value.detach()'), 'HR002'), []);
    assert.deepEqual(lint(src('{k: v.detach() for k, v in preds.items()}', 'value'), 'HR002'), []);
  });

  it('empty_cache() only on the first update is not every step', () => {
    const src = (cond: string) =>
      code(`
import torch
def train(model, loader, opt, trainer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        if ${cond}:
            torch.cuda.empty_cache()
`);
    assert.deepEqual(lint(src('trainer.get_num_updates() == 0'), 'HR005'), []);
    assert.deepEqual(lint(src('step < 3'), 'HR005'), []);
    assert.deepEqual(lines(lint(src('loss.item() > 10'), 'HR005')), [8]);
  });

  it('finds where each name is defined as /\\bdef[ \\t]+(\\w+)/g does, on every Python file here and on awkward text', () => {
    const files = pythonFiles(ROOT);
    const texts = files.map((f) => readFileSync(f, 'utf8'));
    texts.push(
      'undef x\ndef\tf(): pass\ndef  g(): pass\ndefine = 1\n_def h\nx.def k\ndef (\ndef caf\u00e9(): pass\ndef',
      'def',
      'def a',
      ' def\t\t b_2(x):',
    );
    let names = 0;
    for (const text of texts) {
      const want = new Map<string, number[]>();
      for (const m of text.matchAll(/\bdef[ \t]+(\w+)/g))
        want.set(m[1]!, [...(want.get(m[1]!) ?? []), m.index + m[0].length - m[1]!.length]);
      const tree = parser.parse(text);
      try {
        assert.deepEqual(definitionSites(rootOf(tree, text)), want);
      } finally {
        forgetRoot(tree);
        tree.delete();
      }
      names += want.size;
    }
    assert.ok(files.length > 100 && names > 300, `${files.length} files, ${names} names`);
  });
});
