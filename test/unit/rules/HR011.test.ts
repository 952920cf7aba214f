import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { PythonParser } from '../../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../../extension/src/core/lint/types';
import { code, lintWith, loadParser } from '../lintHelpers';

// HR011's tests: its page (docs/rules/HR011.md) says what it finds and when it stays silent.

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);

describe('HR011 cuda-in-dataloader-worker', () => {
  before(async () => {
    parser = await loadParser();
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
});
