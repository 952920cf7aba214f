import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR007's tests: its page (docs/rules/HR007.md) says what it finds and when it stays silent.

describeRule('HR007 deprecated-cuda-amp', (lint) => {
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
