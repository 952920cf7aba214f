import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LintSession } from '../../../extension/src/core/lint/session';
import { code, describeRule } from '../lintHelpers';

// HR011's tests: its page (docs/rules/HR011.md) says what it finds and when it stays silent.

describeRule('HR011 cuda-in-dataloader-worker', (lint, parser) => {
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
    assert.deepEqual(
      fs.map((f) => [f.start.line, f.severity]),
      [[4, 'error']],
    );
    assert.equal(lint(src.replace('num_workers=4', 'num_workers=0'), 'HR011')[0]?.severity, 'warning');
  });

  const workers = code(`
import torch
from torch.utils.data import DataLoader, Dataset
import torchvision.transforms as T

def to_gpu(batch):
    return torch.stack(batch).cuda()

def unused_collate(batch):
    return torch.stack(batch).cuda()

class ToDevice:
    def __call__(self, x):
        return x.to("cuda")

class NotATransform:
    def __call__(self, x):
        return x.to("cuda")

class Pairs(Dataset):
    def __init__(self):
        self.transform = T.Compose([ToDevice()])
    def collate_fn(self, batch):
        return torch.stack(batch).to(self.device)

loader = DataLoader(Pairs(), num_workers=4, collate_fn=to_gpu)
`);

  it('other code the workers run: a collate_fn or worker_init_fn handed to a DataLoader, a Dataset’s collate hook, a transform’s __call__', () => {
    const fs = lint(workers, 'HR011');
    const lines = workers.split('\n');
    assert.deepEqual(
      fs.map((f) => [lines[f.start.line]!.trim(), f.severity]),
      [
        ['return torch.stack(batch).cuda()', 'error'],
        ['return x.to("cuda")', 'error'],
        ['return torch.stack(batch).to(self.device)', 'error'],
      ],
    );
    assert.deepEqual(
      fs.map((f) => f.start.line),
      [5, 12, 22],
      'to_gpu, ToDevice.__call__ and Pairs.collate_fn; not the collate function nobody hands over, nor a callable used as no transform',
    );
    assert.match(fs[0]!.message, /CUDA in to_gpu \(run by the DataLoader's workers\)/);
    assert.match(fs[1]!.message, /CUDA in ToDevice\.__call__ \(a transform the Dataset runs per item\)/);
    const init = workers.replace('collate_fn=to_gpu', 'worker_init_fn=unused_collate');
    assert.deepEqual(
      lint(init, 'HR011').map((f) => f.start.line),
      [8, 12, 22],
    );
  });

  it('handing a function to a DataLoader in another statement re-lints the function, as a full lint does', () => {
    const before = workers.replace(', collate_fn=to_gpu', '');
    const s = new LintSession(parser(), { select: ['HR011'] });
    assert.deepEqual(
      s.update(before).map((f) => f.start.line),
      [12, 22],
    );
    const at = before.indexOf('num_workers=4') + 'num_workers=4'.length;
    const line = before.slice(0, at).split('\n').length - 1;
    const col = at - (before.lastIndexOf('\n', at - 1) + 1);
    const inc = s.update(workers, [{ offset: at, length: 0, text: ', collate_fn=to_gpu', start: { line, col }, end: { line, col } }]);
    assert.deepEqual(
      inc.map((f) => [f.start.line, f.severity]),
      lint(workers, 'HR011').map((f) => [f.start.line, f.severity]),
    );
    s.dispose();
  });

  it('edits a session reads the file key again for (inside a multi-line DataLoader or Compose list, a key word typed or broken) equal a full lint', () => {
    const multi = workers
      .replace('self.transform = T.Compose([ToDevice()])', 'self.transform = T.Compose([\n            T.Resize(8),\n        ])')
      .replace(
        'loader = DataLoader(Pairs(), num_workers=4, collate_fn=to_gpu)',
        'loader = DataLoader(\n    Pairs(),\n    num_workers=4,\n)',
      );
    const s = new LintSession(parser(), { select: ['HR011'] });
    let text = multi;
    s.update(text);
    const edit = (find: string, replace: string) => {
      const at = text.indexOf(find);
      assert.ok(at >= 0, find);
      const pos = (i: number) => ({ line: text.slice(0, i).split('\n').length - 1, col: i - (text.lastIndexOf('\n', i - 1) + 1) });
      const change = { offset: at, length: find.length, text: replace, start: pos(at), end: pos(at + find.length) };
      text = text.slice(0, at) + replace + text.slice(at + find.length);
      const inc = s.update(text, [change]);
      assert.deepEqual(
        inc.map((f) => [f.start.line, f.severity]),
        lint(text, 'HR011').map((f) => [f.start.line, f.severity]),
        `after ${find} → ${replace}`,
      );
    };
    edit('    num_workers=4,', '    num_workers=0,'); // a line of the DataLoader call without the word DataLoader
    edit('            T.Resize(8),', '            T.Resize(8),\n            ToDevice(),'); // a class added to a Compose list, on its own line
    edit('    num_workers=0,', '    num_workers=2,\n    collate_fn=to_gp,');
    edit('collate_fn=to_gp,', 'collate_fn=to_gpu,'); // one letter typed
    edit('collate_fn=to_gpu', 'colate_fn=to_gpu'); // a letter of the key word deleted
    edit('ToDevice(),', 'NotATransform(),');
    s.dispose();
  });

  it('HR011: the collate hook of a data class from another library (a base named like data), not a method of another class', () => {
    const src = code(`
import torch
class ScalarData(DataBase):
    def collate(self, examples):
        arr = np.array(examples)
        return torch.from_numpy(arr).to(device=self.device)

class Reporter(Logger):
    def collate(self, rows):
        return torch.tensor(rows).to(self.device)

class Eos(FairseqDataset):
    def collater(self, samples):
        self.eos = self.eos.to(device=samples[0]["source"].device)
        return samples
`);
    assert.deepEqual(
      lint(src, 'HR011').map((f) => f.start.line),
      [4],
    );
  });
});
