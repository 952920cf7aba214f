import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { isModelCall, MAY_CALL_MODEL } from '../../extension/src/core/lint/analysis/calls';
import { rootOf } from '../../extension/src/core/lint/syntax/syntaxTree';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';
import { code, fixed, lintWith, loadParser, pythonFiles } from './lintHelpers';

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);

describe('lint: call and argument rules (HR003, HR005–HR018)', () => {
  before(async () => {
    parser = await loadParser();
  });

  describe('HR008, HR013, HR016: arguments that cost memory', () => {
    it('HR008 removes set_to_none=False', () => {
      const src = 'import torch\nopt.zero_grad(set_to_none=False)\nopt.zero_grad(set_to_none=True)\n';
      const fs = lint(src, 'HR008');
      assert.equal(fs.length, 1);
      assert.equal(fixed(src, fs[0]!), src.replace('opt.zero_grad(set_to_none=False)', 'opt.zero_grad()'));
    });

    it('HR013 removes retain_graph=True unless a second backward follows in the step', () => {
      const one = code(`
import torch
for x in loader:
    loss = model(x).sum()
    loss.backward(retain_graph=True)
    opt.step()
`);
      const [f] = lint(one, 'HR013');
      assert.ok(f);
      assert.equal(fixed(one, f), one.replace('loss.backward(retain_graph=True)', 'loss.backward()'));
      const gan = code(`
import torch
for x in loader:
    d_loss = critic(model(x)).mean()
    d_loss.backward(retain_graph=True)
    g_loss = -d_loss
    g_loss.backward()
`);
      assert.deepEqual(lint(gan, 'HR013'), []);
    });

    it('HR013: not in a loop over the parts of a graph built before it, where each pass goes through the same graph again (torchrl\'s loss tests)', () => {
      const src = code(`
import torch
loss = loss_fn(td)
for k in loss.keys():
    if not k.startswith("loss"):
        continue
    loss[k].sum().backward(retain_graph=True)
    check_grads(k)
`);
      assert.deepEqual(lint(src, 'HR013'), []);
      assert.deepEqual(lint(src.replace('for k in loss.keys():', 'for k in loss.keys():\n    loss = loss_fn(td)'), 'HR013').length, 1, 'a graph built in the loop');
      const parts = code(`
import torch
out = model(x)
losses = [out.sum(), out.mean()]
for part in losses:
    torch.autograd.backward(part, retain_graph=True)
`);
      assert.deepEqual(lint(parts, 'HR013'), []);
      assert.equal(lint(parts.replace('for part in losses:', 'for part in losses:\n    out = model(x)\n    part = out.sum()'), 'HR013').length, 1, 'rebuilt in the loop');
      // accelerate: what is back-propagated is the argument (built in the loop here), not the accelerator.
      const accel = code(`
import torch
for batch in loader:
    loss = model(batch).sum()
    accelerator.backward(loss, retain_graph=True)
    optimizer.step()
`);
      assert.equal(lint(accel, 'HR013').length, 1);
    });

    it('HR016 adds map_location="cpu" when the checkpoint goes into load_state_dict', () => {
      const src = 'import torch\nsd = torch.load(path)\nmodel.load_state_dict(sd["model"])\nother = torch.load(p2)\n';
      const fs = lint(src, 'HR016');
      assert.equal(fs.length, 1);
      assert.equal(fixed(src, fs[0]!), src.replace('torch.load(path)', 'torch.load(path, map_location="cpu")'));
      assert.equal(lint('import torch\nmodel.load_state_dict(torch.load(p))\n', 'HR016').length, 1);
      assert.deepEqual(lint('import torch\nmodel.load_state_dict(torch.load(p, map_location="cpu"))\n', 'HR016'), []);
    });
  });

  describe('HR017 nonexistent-torch-api and HR018 deprecated-memory-api', () => {
    it('HR017: the invented efficient_coalesce is an error that names the real memory APIs', () => {
      const src = 'import torch\ntorch.cuda.memory.efficient_coalesce()\ntorch.cuda.memory.empty_cache()\ntorch.cuda.emtpy_cache()\nfrom torch.cuda.memory import memory_sumary\nif hasattr(torch.cuda, "new_api"):\n    torch.cuda.new_api()\ntorch.cuda._private()\n';
      const fs = lint(src, 'HR017');
      assert.deepEqual(fs.map((f) => [f.start.line, f.severity]), [[1, 'error'], [3, 'error'], [4, 'error']]);
      assert.match(fs[0]!.message, /torch\.cuda\.memory has no `efficient_coalesce`.*torch\.cuda\.empty_cache\(\)/);
      assert.equal(fixed(src, fs[1]!), src.replace('torch.cuda.emtpy_cache()', 'torch.cuda.empty_cache()'));
      assert.equal(fixed(src, fs[2]!), src.replace('import memory_sumary', 'import memory_summary'));
    });

    it('HR017: names behind a version or backend check are deliberate, attributes and imports alike (mmengine\'s parrots branches)', () => {
      const src = code(`
import torch
from torch import nn
GUARD
    from torch.utils.data import DataLoader, PoolDataLoader
    norm = torch.nn.SyncBatchNorm2d
    bn = nn.SyncBatchNorm2d
`);
      for (const guard of ["if TORCH_VERSION == 'parrots':", 'if torch.__version__ < "1.0":', 'if IS_PARROTS_Version:', 'if hasattr(torch.nn, "SyncBatchNorm2d"):']) assert.deepEqual(lint(src.replace('GUARD', guard), 'HR017'), [], guard);
      // Any other condition is no guard, a word that only contains "version" neither (torchrl's PONG_VERSIONED()):
      // the import's name and both attributes are reported.
      for (const other of ['if use_parrots:', 'if env_name == PONG_VERSIONED():']) assert.deepEqual(lint(src.replace('GUARD', other), 'HR017').map((f) => f.start.line), [3, 4, 5], other);
    });

    it('HR017: a function that binds the import\'s name itself uses a local there, not the module (torchrl\'s `dist = policy.get_dist(…)`)', () => {
      const src = code(`
import torch
from torch import distributions as dist
def assigned(policy, obs):
    dist = policy.get_dist(obs)
    return dist.base_dist.logits
def parameter(dist):
    return dist.base_dist
def looped(policies):
    for dist in policies:
        print(dist.base_dist)
def module_name():
    return dist.base_dist
def nested():
    def inner():
        dist = make()
    return dist.base_dist
`);
      assert.deepEqual(lint(src, 'HR017').map((f) => f.start.line), [11, 15]);
    });

    it('HR018 renames cached → reserved and converts list constructors', () => {
      const src = 'import torch as th\na = th.cuda.memory_cached()\nth.cuda.reset_max_memory_allocated()\nt = th.cuda.FloatTensor([1.0, 2.0])\nu = th.cuda.FloatTensor(3, 4)\n';
      const fs = lint(src, 'HR018');
      assert.equal(fs.length, 4);
      assert.equal(fixed(src, fs[0]!), src.replace('memory_cached', 'memory_reserved'));
      assert.equal(fixed(src, fs[1]!), src.replace('reset_max_memory_allocated', 'reset_peak_memory_stats'));
      assert.equal(fixed(src, fs[2]!), src.replace('th.cuda.FloatTensor([1.0, 2.0])', 'th.tensor([1.0, 2.0], dtype=th.float32, device="cuda")'));
      assert.equal(fs[3]!.fixes.length, 0);
    });
  });

  describe('HR003, HR009, HR010, HR011, HR012, HR014, HR015', () => {
    it('HR003 is off unless asked for; then it moves collected outputs to the host', () => {
      const src = code(`
import torch
preds = []
with torch.no_grad():
    for x in loader:
        out = model(x)
        preds.append(out)
`);
      assert.deepEqual(lint(src).filter((f) => f.rule === 'HR003'), []);
      const [f] = lint(src, 'HR003');
      assert.equal(f?.severity, 'info');
      assert.equal(fixed(src, f!), src.replace('preds.append(out)', 'preds.append(out.detach().cpu())'));
      assert.deepEqual(lint(src.replace('preds.append(out)', 'preds.append(out.cpu())'), 'HR003'), []);
      // Rebound to a host copy before it is kept (a time-series repository's test loop).
      assert.deepEqual(lint(src.replace('        preds.append(out)', '        out = out[:, -24:].cpu().numpy()\n        preds.append(out)'), 'HR003'), []);
      // Loops over `val_dl` or a tqdm `pbar` are data loops too (real code names them so).
      for (const it of ['val_dl', 'pbar']) assert.equal(lint(src.replace('for x in loader:', `for x in ${it}:`), 'HR003').length, 1, it);
      assert.equal(lint(src.replace('for x in loader:', 'for x in names:'), 'HR003').length, 0);
    });

    it('HR009 flags zero_grad between forward and backward, not gradient accumulation', () => {
      const late = 'import torch\nfor x in loader:\n    loss = model(x).sum()\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n';
      assert.deepEqual(lint(late, 'HR009').map((f) => f.start.line), [3]);
      const early = 'import torch\nfor x in loader:\n    opt.zero_grad()\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n';
      assert.deepEqual(lint(early, 'HR009'), []);
      const accum = 'import torch\nfor i, x in enumerate(loader):\n    loss = model(x).sum()\n    if i % 4 == 0:\n        opt.zero_grad()\n    loss.backward()\n';
      assert.deepEqual(lint(accum, 'HR009'), []);
    });

    it('HR010 folds the copy into the factory', () => {
      const src = 'import torch\nfor x in loader:\n    m = torch.zeros(3, 4).cuda()\n    n = torch.ones(8, dtype=torch.int64).to(dev)\n    k = torch.zeros(2, device="cuda")\n';
      const fs = lint(src, 'HR010');
      assert.equal(fs.length, 2);
      assert.equal(fixed(src, fs[0]!), src.replace('torch.zeros(3, 4).cuda()', 'torch.zeros(3, 4, device="cuda")'));
      assert.equal(fixed(src, fs[1]!), src.replace('torch.ones(8, dtype=torch.int64).to(dev)', 'torch.ones(8, dtype=torch.int64, device=dev)'));
      assert.deepEqual(lint('import torch\nm = torch.zeros(3).cuda()\n', 'HR010'), []);
    });

    it('HR011: CUDA in __getitem__, an error with forked workers', () => {
      const src = code(`
import torch
from torch.utils.data import Dataset, DataLoader
class Images(Dataset):
    def __getitem__(self, i):
        return self.data[i].cuda()
    def stats(self):
        return self.data.cuda()
loader = DataLoader(Images(), num_workers=4)
`);
      const fs = lint(src, 'HR011');
      assert.deepEqual(fs.map((f) => [f.start.line, f.severity]), [[4, 'error']]);
      assert.equal(lint(src.replace('num_workers=4', 'num_workers=0'), 'HR011')[0]?.severity, 'warning');
    });

    it('HR012: per-tensor pinning in a loop, and a host read before the copy is done', () => {
      const pin = 'import torch\nfor x in batches:\n    y = x.pin_memory().to(dev, non_blocking=True)\n';
      const [a] = lint(pin, 'HR012');
      assert.equal(fixed(pin, a!), pin.replace('x.pin_memory().to', 'x.to'));
      const read = 'import torch\ny = t.to("cpu", non_blocking=True)\nprint(y.numpy())\nv = y.numpy()\n';
      const [c] = lint(read, 'HR012');
      assert.equal(c?.severity, 'warning');
      assert.equal(fixed(read, c!), read.replace(', non_blocking=True', ''));
      assert.deepEqual(lint('import torch\ny = t.to("cpu", non_blocking=True)\ntorch.cuda.synchronize()\nv = y.numpy()\n', 'HR012'), []);
    });

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
      assert.equal(fixed(src, f), src.replace('    output, hidden = model(data, hidden)', '    hidden = hidden.detach() if isinstance(hidden, torch.Tensor) else tuple(t.detach() for t in hidden)\n    output, hidden = model(data, hidden)'));
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
      assert.deepEqual(lint(rollout.replace('for data in batches:', 'with torch.no_grad():\n  for data in batches:').replace(/\n    /g, '\n      '), 'HR014'), []);
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
      for (const d of ['hidden[0].detach_()\n    hidden[1].detach_()', 'hidden.detach_()', 'hidden[ 0 ].detach_()']) assert.deepEqual(lint(src.replace('DETACH', d), 'HR014'), [], d);
      // After the step (the output detached for the next one) counts as well.
      assert.deepEqual(lint(src.replace('    DETACH\n', '').replace('    opt.step()\n', '    opt.step()\n    hidden.detach_()\n'), 'HR014'), []);
      // Another name's detach_, or a copy's, leaves the chain: still flagged.
      for (const d of ['other.detach_()', 'hidden_copy.detach_()', 'hidden[0].detach()', 'x = hidden[0].detach_']) assert.equal(lint(src.replace('DETACH', d), 'HR014').length, 1, d);
    });

    it('HR014 reads only loop bodies whose text may call a model: every call isModelCall accepts, in real code, is one', () => {
      // MAY_CALL_MODEL is a text test run before any node of a body is read; a call it missed would be a lost finding.
      const files = [...pythonFiles(join(ROOT, 'test')), ...pythonFiles(join(ROOT, 'extension', 'agent'))];
      let n = 0;
      for (const f of files) {
        const text = readFileSync(f, 'utf8');
        const tree = parser.parse(text);
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
      for (const t of ['self.model["g"](z)', 'self.nets[k] (x)', 'net \\\n (x)', 'f(model  # why\n (x))', 'x . forward(y)', 'module.validation_step(b)']) assert.match(t, MAY_CALL_MODEL);
    });

    it('HR015: retrying the model inside except, not logging or skipping', () => {
      const retry = 'import torch\ntry:\n    out = model(x)\nexcept torch.cuda.OutOfMemoryError:\n    out = model(x[:1])\n';
      assert.equal(lint(retry, 'HR015').length, 1);
      const skip = 'import torch\nfor x in loader:\n    try:\n        out = model(x)\n    except RuntimeError as e:\n        print(e)\n        torch.cuda.empty_cache()\n        continue\n';
      assert.deepEqual(lint(skip, 'HR015'), []);
    });
  });

  describe('HR005 empty-cache-in-step-loop', () => {
    it('in a step loop: a warning; the fix removes the line and keeps the comment above', () => {
      const src = code(`
import torch
for batch in loader:
    loss = model(batch).sum()
    loss.backward()
    # free memory (does not)
    torch.cuda.empty_cache()
    optimizer.step()
`);
      const [f] = lint(src, 'HR005');
      assert.equal(f?.severity, 'warning');
      assert.equal(fixed(src, f!), src.replace('    torch.cuda.empty_cache()\n', ''));
    });

    it('alone in its block it becomes pass; an alias resolves', () => {
      const src = 'from torch.cuda import empty_cache\nimport torch\nfor batch in loader:\n    loss = model(batch)\n    loss.backward()\n    if loss > 3:\n        empty_cache()\n';
      const [f] = lint(src, 'HR005');
      assert.ok(f);
      assert.equal(fixed(src, f), src.replace('        empty_cache()', '        pass'));
    });

    it('not in an OOM handler, nor every N steps, nor outside loops', () => {
      const src = code(`
import torch
torch.cuda.empty_cache()
for step, batch in enumerate(loader):
    try:
        loss = model(batch)
        loss.backward()
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
    if step % 100 == 0:
        torch.cuda.empty_cache()
`);
      assert.deepEqual(lint(src, 'HR005'), []);
    });

    it('not after an OOM either, under the flag its handler sets (fairseq\'s trainer: `if has_oom:`); an unrelated flag is no guard', () => {
      const src = code(`
import torch
for i, batch in enumerate(loader):
    FLAG = False
    try:
        loss = model(batch)
        loss.backward()
    except RuntimeError as e:
        if "out of memory" in str(e):
            FLAG = True
    if FLAG:
        optimizer.zero_grad()
        torch.cuda.empty_cache()
`);
      for (const flag of ['has_oom', 'oom', 'self.oom', 'is_oom_batch']) assert.deepEqual(lint(src.replaceAll('FLAG', flag), 'HR005'), [], flag);
      for (const flag of ['zoom', 'log_now', 'room']) assert.equal(lint(src.replaceAll('FLAG', flag), 'HR005').length, 1, flag);
    });
  });

  describe('HR006 checkpoint-use-reentrant', () => {
    it('adds use_reentrant=False, whatever the import spelling and trailing comma', () => {
      const cases: [string, string][] = [
        ['from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x)\n', 'y = checkpoint(f, x, use_reentrant=False)\n'],
        ['import torch.utils.checkpoint as cp\ny = cp.checkpoint(\n    f,\n    x,\n)\n', 'y = cp.checkpoint(\n    f,\n    x, use_reentrant=False\n)\n'],
        ['import torch\ny = torch.utils.checkpoint.checkpoint_sequential(fs, 2, x)\n', 'y = torch.utils.checkpoint.checkpoint_sequential(fs, 2, x, use_reentrant=False)\n'],
      ];
      for (const [src, want] of cases) {
        const [f, ...rest] = lint(src, 'HR006');
        assert.equal(rest.length, 0);
        assert.ok(f, src);
        assert.equal(fixed(src, f).split('\n').slice(1).join('\n'), want);
      }
    });

    it('no finding with the keyword, with **kwargs, or for another checkpoint()', () => {
      const src = code(`
import torch
from torch.utils.checkpoint import checkpoint
from deepspeed import checkpointing
a = checkpoint(f, x, use_reentrant=True)
b = checkpoint(f, x, **kw)
c = checkpointing.checkpoint(f, x)
`);
      assert.deepEqual(lint(src, 'HR006'), []);
    });
  });

  describe('HR007 deprecated-cuda-amp', () => {
    it('rewrites full spellings to torch.amp with the device', () => {
      const src = code(`
import torch
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    pass
class F(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x
`);
      const fs = lint(src, 'HR007');
      assert.equal(fs.length, 3);
      let out = src;
      for (const f of [...fs].reverse()) out = fixed(out, f);
      assert.equal(
        out,
        src
          .replace('torch.cuda.amp.GradScaler()', 'torch.amp.GradScaler("cuda")')
          .replace('torch.cuda.amp.autocast(dtype', 'torch.amp.autocast("cuda", dtype')
          .replace('@torch.cuda.amp.custom_fwd', '@torch.amp.custom_fwd(device_type="cuda")'),
      );
    });

    it('an imported name is reported without a fix (its import must change too); a version guard is left alone', () => {
      const src = code(`
import torch
from torch.cuda.amp import autocast
with autocast():
    pass
try:
    from torch.amp import GradScaler
except ImportError:
    scaler = torch.cuda.amp.GradScaler()
`);
      const fs = lint(src, 'HR007');
      assert.equal(fs.length, 1);
      assert.equal(fs[0]!.fixes.length, 0);
      assert.equal(fs[0]!.start.line, 2);
    });
  });
});
