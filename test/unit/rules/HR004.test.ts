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
      src.replace(
        '    for x, y in loader:\n        out = model(x)\n        correct += (out.argmax(1) == y).sum().item()\n',
        '    with torch.no_grad():\n        for x, y in loader:\n            out = model(x)\n            correct += (out.argmax(1) == y).sum().item()\n',
      ),
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
    assert.deepEqual(
      lint(epochs, 'HR004').map((f) => f.start.line),
      [8],
    );
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
    assert.deepEqual(
      lint(inFunction, 'HR004').map((f) => f.start.line),
      [4],
    );
    assert.equal(lint(inFunction, 'HR004')[0]!.fixes.length, 2, 'wrap, or decorate the function');
    assert.equal(lint(epochs, 'HR004')[0]!.fixes.length, 1, 'module code: wrap only');
  });

  it('a torch.Generator is no model (diffusers tests seed one per pass)', () => {
    const seeded = src.replace('        out = model(x)\n', '        g = torch.Generator("cpu").manual_seed(0)\n        out = x.flip(0)\n');
    assert.deepEqual(lint(seeded, 'HR004'), []);
    assert.equal(lint(seeded.replace('out = x.flip(0)', 'out = generator(x)'), 'HR004').length, 1);
  });

  // The generalization: an inference loop told by what it does, whatever the loop, the function and the model are called.
  it('a loop that runs a model on inputs that change every pass, in code that never trains, is evaluation whatever its names', () => {
    const run = code(`
import torch
from tqdm import tqdm
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 2, 1)
    def forward(self, x):
        return self.conv(x)
def score_images(images):
    net = Net()
    masks = []
    for img in tqdm(images):
        masks.append(net(img.cuda()).argmax(1).cpu())
    return masks
def dump(m, dataset):
    for i in range(len(dataset)):
        torch.save(m(dataset[i]), f"{i}.pt")
`);
    // A module by what built it (Net subclasses nn.Module), not by its name; `m` is not known to be one.
    assert.deepEqual(
      lint(run, 'HR004').map((f) => f.start.line),
      [11],
    );
    assert.deepEqual(
      lint(run.replace('def dump(m, dataset):', 'def dump(m, dataset):\n    m.eval()'), 'HR004').map((f) => f.start.line),
      [11, 16],
    );
    // A module without parameters (`x * 2`) is a function of its inputs: no graph unless they carry one.
    assert.deepEqual(
      lint(
        run.replace('        return self.conv(x)', '        return x * 2').replace('        self.conv = torch.nn.Conv2d(3, 2, 1)\n', ''),
        'HR004',
      ),
      [],
    );
    // The same loop training, or under no_grad: silent.
    assert.deepEqual(
      lint(run.replace('    return masks', '    torch.stack(masks).float().sum().backward()\n    return masks'), 'HR004').map(
        (f) => f.start.line,
      ),
      [],
    );
    assert.deepEqual(lint(run.replace('def score_images', '@torch.no_grad()\ndef score_images'), 'HR004'), []);
  });

  it('a sampler whose output feeds the next pass, returned to a caller that only saves it; not when a caller trains on it', () => {
    const sampler = (caller: string) =>
      code(`
import torch
class UNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 1)
    def forward(self, x, t):
        return self.conv(x)
def denoise(unet, x, steps):
    for t in reversed(range(steps)):
        eps = unet(x, t)
        x = x - 0.1 * eps
    return x
def main():
    unet = UNet()
    ${caller}
`);
    assert.deepEqual(
      lint(sampler('torch.save(denoise(unet, torch.randn(1, 3), 50), "x.pt")'), 'HR004').map((f) => f.start.line),
      [8],
    );
    assert.deepEqual(lint(sampler('loss = denoise(unet, torch.randn(1, 3), 5).mean()\n    loss.backward()'), 'HR004'), []);
    // With no caller in the file it may be differentiated through (a rollout's log-probabilities): left alone.
    assert.deepEqual(lint(sampler('pass'), 'HR004'), []);
  });

  it('leaves alone what only looks like inference: a rollout trained on later, a benchmark, layers, a GAN step, a test file', () => {
    const src = code(`
import torch
import torch.nn as nn
class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
    def encode(self, x):
        for i in range(3):
            x = self.layers[i](x)
        return x
def run_episode(policy, env):
    log_probs = []
    state, done = env.reset(), False
    while not done:
        dist = torch.distributions.Categorical(policy(state))
        a = dist.sample()
        log_probs.append(dist.log_prob(a))
        state, r, done, _ = env.step(a.item())
    return log_probs
def finish(policy, env, opt):
    loss = -torch.stack(run_episode(policy, env)).sum()
    loss.backward()
    opt.step()
def benchmark(model, x):
    for _ in range(100):
        y = model(x)
def gan(G, D, opt_d, zs):
    for z in zs:
        D(G(z)).mean().backward()
        opt_d.step()
def models_agree(models, x):
    for model in models:
        print(model(x).shape)
`);
    assert.deepEqual(lint(src, 'HR004'), []);
    // An imagined rollout kept on the agent (`self.infos.append(…)`) feeds a loss in another method.
    const dream = code(`
import torch
class Agent:
    def imagine(self, state):
        for t in range(15):
            action = self.actor(state)
            state = self.model(state, action)
            self.infos.append(state)
`);
    assert.deepEqual(lint(dream, 'HR004'), []);
    assert.equal(
      lint(dream.replace('            self.infos.append(state)\n', '            print(state.sum().item())\n'), 'HR004').length,
      1,
    );
    const pytest = code(`
import pytest
import torch
def check_shapes(model, batches):
    for b in batches:
        assert model(b).shape[0] == b.shape[0]
`);
    assert.deepEqual(lint(pytest, 'HR004'), []);
    assert.equal(lint(pytest.replace('import pytest\n', ''), 'HR004').length, 1);
  });

  it("a trainer's own validation_step that sets eval mode runs with grad on; Lightning's runs without", () => {
    const trainer = code(`
import torch
class Trainer:
    def validation_step(self, batch):
        self.model.eval()
        out = self.model(batch)
        return out.mean().item()
    def fit(self, loader):
        return [self.validation_step(b) for b in loader]
`);
    const fs = lint(trainer, 'HR004');
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [4],
    );
    assert.equal(fixed(trainer, fs[0]!), trainer.replace('    def validation_step', '    @torch.no_grad()\n    def validation_step'));
    assert.deepEqual(lint(trainer.replace('import torch\n', 'import torch\nimport lightning as L\n'), 'HR004'), []);
    assert.deepEqual(lint(trainer.replace('        self.model.eval()\n', ''), 'HR004'), []);
    assert.deepEqual(lint(trainer.replace('return out.mean().item()', 'out.mean().backward()'), 'HR004'), []);
  });

  it('HR004 generalized: the loop whose item reaches the model (whatever the iterable is called), a name ending like a model that the file binds, a model moved in place, a helper that runs one; not where the function trains through a helper', () => {
    const inner = code(`
import torch
def evaluate(model, tasks, iterator):
    model.eval()
    for task in tasks:
        generator = iterator(task.dataset, num_epochs=1)
        for batch in generator:
            out = model.forward(task, batch)
`);
    assert.deepEqual(
      lint(inner, 'HR004').map((f) => f.start.line),
      [5],
    );
    const suffix = code(`
import torch
def main(args, draft_model, eagle3_model, eval_dataloader):
    draft_model.eval()
    for data in eval_dataloader:
        plosses = eagle3_model(input_ids=data["input_ids"].cuda())
`);
    assert.deepEqual(
      lint(suffix, 'HR004').map((f) => f.start.line),
      [3],
    );
    assert.deepEqual(
      lint(
        suffix
          .replace(/eagle3_model/g, 'convert_model')
          .replace(
            'def main(args, draft_model, convert_model, eval_dataloader)',
            'from tools import convert_model\ndef main(args, draft_model, eval_dataloader)',
          ),
        'HR004',
      ),
      [],
      'a function named like one is not a model',
    );
    const moved = code(`
import torch
class CNN:
    def build(self):
        self.model = MobilenetV3()
        self.model.to(self.device)

    def features(self, loader):
        feats = []
        for ims in loader:
            arr = self.model(ims.to(self.device))
            feats.append(arr.detach().cpu())
        return feats
`);
    assert.deepEqual(
      lint(moved, 'HR004').map((f) => f.start.line),
      [8],
    );
    const helper = code(`
import torch
def extract(path, model, out):
    wav = load(path)
    feats = model(wav)
    out.append(feats.detach().cpu().numpy())
    return out

def generate(files, model):
    out = []
    for i in range(len(files)):
        path = files[i]
        out = extract(path, model, out)

model = torch.hub.load("repo", "hubert")
generate(files, model)
`);
    assert.deepEqual(
      lint(helper, 'HR004').map((f) => f.start.line),
      [9],
    );
    const reinforce = code(`
import torch
policy = Policy()
def select_action(state):
    probs = policy(torch.from_numpy(state))
    policy.saved.append(probs.log())
    return probs.argmax().item()

def finish_episode():
    loss = torch.cat(policy.saved).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

def main():
    for episode in count(1):
        state = env.reset()
        for t in range(10000):
            action = select_action(state)
            state, reward, done = env.step(action)
        finish_episode()
`);
    assert.deepEqual(lint(reinforce, 'HR004'), [], 'the function trains through finish_episode()');
  });
});
