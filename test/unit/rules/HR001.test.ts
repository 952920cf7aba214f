import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, EVAL_LOOP, fixed } from '../lintHelpers';

// HR001's tests: its page (docs/rules/HR001.md) says what it finds and when it stays silent.

describeRule('HR001 accumulate-grad-history', (lint) => {
  it('an eval loop without no_grad keeps whole graphs: an error, with .item() and .detach() fixes', () => {
    const [f, ...rest] = lint(EVAL_LOOP, 'HR001');
    assert.equal(rest.length, 0);
    assert.equal(f!.severity, 'error');
    assert.equal(f!.start.line, 7);
    assert.match(f!.message, /`total_loss` accumulates `loss`/);
    // The statement, and the loop it repeats in (its last line is the statement's).
    assert.deepEqual(f!.evidence, { line: 7, loopLine: 4, loopEndLine: 7, name: 'total_loss' });
    assert.equal(fixed(EVAL_LOOP, f!), EVAL_LOOP.replace('total_loss += loss  #', 'total_loss += loss.item()  #'));
    assert.equal(fixed(EVAL_LOOP, f!, 1), EVAL_LOOP.replace('total_loss += loss  #', 'total_loss += loss.detach()  #'));
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
    const values = src
      .replace('_, predicts = torch.max(outputs, 1)', 'best, predicts = torch.max(outputs, 1)')
      .replace('hits += outputs.argmax(1).eq(labels).sum()', 'hits += best.sum()');
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
    assert.deepEqual(
      lint(src, 'HR001').map((f) => [f.start.line, f.severity]),
      [
        [9, 'warning'],
        [10, 'warning'],
      ],
    );
    // Not unpacked with what is back-propagated: nothing freed its saved tensors, an error as before.
    const apart = src.replace(
      'batch_loss, batch_mf_loss, batch_emb_loss = model.create_bpr_loss(u, p, n)',
      'batch_loss = model.create_bpr_loss(u, p, n)\n        batch_mf_loss, batch_emb_loss = model.part_losses(u, p, n)',
    );
    assert.deepEqual(
      lint(apart, 'HR001').map((f) => [f.start.line, f.severity]),
      [
        [10, 'warning'],
        [11, 'error'],
      ],
    );
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
    assert.deepEqual(
      fs.map((f) => [f.start.line, f.severity]),
      [
        [6, 'error'],
        [8, 'error'],
      ],
    );
    assert.deepEqual(
      lint(ev.replace('loss2, output = model(d.text, d.label)', 'loss2, output = 0.0, None'), 'HR001').map((f) => f.start.line),
      [6],
    );
    // fairseq's criteria: (loss, sample_size, logging_output); only the loss carries a graph.
    const fair = ev.replace(
      'loss2, output = model(d.text, d.label)\n        val_loss += loss2',
      'loss2, sample_size, logging_output = criterion(model, d)\n        val_loss += sample_size',
    );
    assert.deepEqual(
      lint(fair, 'HR001').map((f) => f.start.line),
      [6],
    );
  });

  // The generalization: accumulation by any shape the code writes it in, and what helpers hand back.
  it('accumulates through a joined tensor, a pair of running sums, and a builtin sum', () => {
    const src = code(`
import torch
def run(model, loader, opt):
    all_out = None
    sums = [0, 0]
    total = 0
    for x, y in loader:
        out = model(x)
        loss = (out - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        all_out = out if all_out is None else torch.cat([all_out, out])
        sums[0], sums[1] = sums[0] + loss, sums[1] + 1
        total = total + sum([loss, loss])
    return all_out, sums, total
`);
    const fs = lint(src, 'HR001');
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [11, 12, 13],
    );
    // A joined tensor stays a tensor: the fix detaches, it does not take .item().
    assert.equal(fixed(src, fs[0]!), src.replace('torch.cat([all_out, out])', 'torch.cat([all_out, out.detach()])'));
    assert.deepEqual(
      lint(
        src
          .replace('torch.cat([all_out, out])', 'torch.cat([all_out, out.detach()])')
          .replace('sums[0] + loss', 'sums[0] + loss.item()')
          .replace('sum([loss, loss])', 'sum([loss.item(), 1])'),
        'HR001',
      ),
      [],
    );
  });

  it('accumulates in place: acc.add_(loss)', () => {
    const src = code(`
import torch
def train(model, loader, opt):
    running = torch.zeros(1, device="cuda")
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        running.add_(loss)
`);
    const fs = lint(src, 'HR001');
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [7],
    );
    assert.deepEqual(lint(fixed(src, fs[0]!), 'HR001'), []);
  });

  it('an object kept across steps whose method adds what it is given to its own state (a meter)', () => {
    const src = (update: string) =>
      code(`
import torch
class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0
    def update(self, val, n=1):
        ${update}
        self.count += n
def train(model, loader, opt):
    losses = AverageMeter()
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        losses.update(loss, x.size(0))
`);
    // Reported where the meter keeps it (as a helper's store is), naming the call; the fix passes a number at the call.
    const fs = lint(src('self.sum += val * n'), 'HR001');
    assert.deepEqual(
      fs.map((f) => [f.start.line, f.severity]),
      [[5, 'warning']],
    );
    assert.match(fs[0]!.message, /called at line 14/);
    assert.equal(
      fixed(src('self.sum += val * n'), fs[0]!),
      src('self.sum += val * n').replace('losses.update(loss,', 'losses.update(loss.item(),'),
    );
    // The method keeps a number: nothing grows.
    assert.deepEqual(lint(src('self.sum += float(val) * n'), 'HR001'), []);
    // A meter from another file: AverageMeter.update adds its first argument to a running sum (pytorch/examples' idiom).
    const imported = code(`
import torch
from utils import AverageMeter
def train(model, loader, opt):
    meter = AverageMeter("loss")
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        meter.update(loss, x.size(0))
        meter.update(loss.item(), x.size(0))
`);
    assert.deepEqual(
      lint(imported, 'HR001').map((f) => f.start.line),
      [8],
    );
    // A fresh meter every step holds one step.
    assert.deepEqual(
      lint(
        imported.replace(
          '    meter = AverageMeter("loss")\n    for x, y in loader:\n',
          '    for x, y in loader:\n        meter = AverageMeter("loss")\n',
        ),
        'HR001',
      ),
      [],
    );
  });

  it('a helper of this file that hands back what it is given (an all-reduce): graph in, graph out', () => {
    const src = code(`
import torch
import torch.distributed as dist
def reduce_mean(t):
    rt = t.clone()
    dist.all_reduce(rt)
    return rt / dist.get_world_size()
def train(model, loader, opt):
    running = 0
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        running += reduce_mean(loss)
        running += reduce_mean(loss.detach())
`);
    assert.deepEqual(
      lint(src, 'HR001').map((f) => f.start.line),
      [12],
    );
  });

  it('HR001: a meter kept on the object in a per-batch method; values from a loss object’s other methods and from instances of a distance class; not a sum reset every outer pass over a few repeats', () => {
    const meter = code(`
import torch
from misc import AverageMeter
class Runner(BaseRunner):
    def __init__(self):
        self.losses = AverageMeter(["coarse", "fine"])
        self.cd = ChamferDistanceMean()

    def train_step(self, batch):
        out = self.model(batch)
        coarse = self.cd(out, batch["gt"]).mean()
        coarse.backward()
        self.losses.update([coarse * 1000])
`);
    assert.deepEqual(
      lint(meter, 'HR001').map((f) => f.start.line),
      [11],
    );
    const lossMethod = code(`
import torch
def train_epoch(loader, model, criterion, optimizer):
    dice_sum = 0.0
    for x, y in loader:
        preds = model(x)
        loss = criterion(preds, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        dice = criterion._show_dice(preds, y)
        dice_sum += dice
`);
    assert.deepEqual(
      lint(lossMethod, 'HR001').map((f) => f.start.line),
      [10],
    );
    const repeats = code(`
import torch
for x in loader:
    d_sum = 0.0
    for _ in range(hp.rep_discriminator):
        opt_d.zero_grad()
        loss_d = crit(disc(x))
        loss_d.backward()
        opt_d.step()
        d_sum += loss_d
    print(d_sum.item())
`);
    assert.deepEqual(lint(repeats, 'HR001'), [], 'bounded by the repeat count, reset every outer pass');
  });
});
