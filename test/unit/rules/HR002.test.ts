import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR002's tests: its page (docs/rules/HR002.md) says what it finds and when it stays silent.

describeRule('HR002 store-grad-tensor-in-container', (lint) => {
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
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [7, 8],
    );
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
    assert.deepEqual(
      lint(kept, 'HR002').map((f) => f.start.line),
      [4, 12],
    );
  });

  it('an object kept across steps whose method stores what it is given in its own state', () => {
    const src = code(`
import torch
class History:
    def __init__(self):
        self.values = []
    def add(self, v):
        self.values.append(v)
def train(model, loader, opt):
    hist = History()
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        hist.add(loss)
`);
    const fs = lint(src, 'HR002');
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [5],
    );
    assert.match(fs[0]!.message, /History\.add/);
    assert.deepEqual(lint(src.replace('hist.add(loss)', 'hist.add(loss.item())'), 'HR002'), []);
    assert.deepEqual(lint(src.replace('self.values.append(v)', 'self.values.append(float(v))'), 'HR002'), []);
  });

  it('a constant key overwrites one entry each step: self.loss["rec"] = loss holds the last one; a varying key keeps each', () => {
    const src = code(`
import torch
class Runner:
    def train_step(self, x, y):
        loss = (self.model(x) - y).pow(2).mean()
        loss.backward()
        self.optimizer.step()
        self.loss["rec"] = loss
        self.history[self.step_count] = loss
`);
    assert.deepEqual(
      lint(src, 'HR002').map((f) => f.start.line),
      [7],
    );
  });

  it('HR002: `xs.extend(out)` keeps the rows of a graph-carrying tensor', () => {
    const src = code(`
import torch
def features(model, loader):
    feats = []
    for x in loader:
        out = model(x)
        feats.extend(out)
    return torch.stack(feats).detach()
`);
    assert.deepEqual(
      lint(src, 'HR002').map((f) => f.start.line),
      [5],
    );
    assert.deepEqual(lint(src.replace('feats.extend(out)', 'feats.extend(out.tolist())'), 'HR002'), []);
  });

  it('HR002: a Lightning training_step that returns graph-carrying entries beside "loss" while training_epoch_end collects the outputs', () => {
    const src = code(`
import torch
import pytorch_lightning as pl
class Model(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        pred = self(batch["x"])
        loss = self.crit(pred, batch["y"])
        aux = self.crit(pred[:, :1], batch["y"][:, :1])
        return {"loss": loss, "aux": aux, "n": len(pred)}

    def training_epoch_end(self, outputs):
        self.log("aux", torch.stack([o["aux"] for o in outputs]).mean())
`);
    const [f] = lint(src, 'HR002');
    assert.equal(f?.start.line, 7);
    assert.equal(fixed(src, f!), src.replace('"aux": aux,', '"aux": aux.detach(),'));
    assert.deepEqual(
      lint(src.replace(/    def training_epoch_end[^]*$/, ''), 'HR002'),
      [],
      'without training_epoch_end Lightning keeps nothing',
    );
  });

  it('HR002: a tensor buffer written in place keeps the graph whatever the index; a dict entry by a constant key holds the last value only', () => {
    const src = code(`
import torch
losses = torch.zeros((steps,), device=device)
metrics = torch.zeros((2,), device=device)
names = {}
for data in dataloader:
    loss = model(data).mean()
    loss.backward()
    optimizer.step()
    losses[i] = loss
    metrics[0] = losses.mean()
    names["loss"] = loss
`);
    assert.deepEqual(
      lint(src, 'HR002').map((f) => f.start.line),
      [8, 9],
    );
  });
});
