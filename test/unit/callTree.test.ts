// The call tree at the peak (core/analysis/callTree.ts) and the breakdown under a line, on real
// framework runs from an H100 (test/fixtures/modules: HF Trainer, Lightning, nanoGPT eager and
// compiled) and the demo capture. The line figures it must equal come from the line attribution,
// an independent pass checked against a Python reference (attribution.test.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { breakdownRows, libraryCoverage, wantsBreakdown } from '../../extension/src/core/analysis/breakdown';
import { callTree } from '../../extension/src/core/analysis/callTree';
import { lineKey } from '../../extension/src/core/analysis/callNode';
import type { CallNode } from '../../extension/src/core/analysis/callNode';
import { plumbingGroup } from '../../extension/src/core/analysis/plumbing';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ClassNames } from '../../extension/src/core/source/classNames';
import { ROOT } from './helpers';

const CAPTURES = ['hf_trainer', 'lightning', 'nanogpt_eager', 'nanogpt_compiled'].map((n) =>
  join(ROOT, 'test', 'fixtures', 'modules', n, 'snapshot-peak.pickle.gz'),
);
CAPTURES.push(
  join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle'),
  join(ROOT, 'test', 'fixtures', 'snapshots', 'transformer_amp_ckpt.pickle'),
);

function* nodes(n: CallNode): Generator<CallNode> {
  yield n;
  for (const c of n.children) yield* nodes(c);
}

describe('call tree of the peak', () => {
  for (const path of CAPTURES) {
    const name = path.split('/').slice(-2).join('/');
    it(`${name}: every node adds up, the root is the live total, each line's subtree is its self bytes, no plumbing is kept`, async () => {
      const s = await loadSnapshotFile(path);
      const a = analyzeDevice(s, 0);
      const instant = a.replay.peak;
      const t = callTree(s, a, instant.index, new ClassNames());
      const attr = attributeAt(s, a, instant);
      assert.equal(t.root.bytes, attr.totalBytes);
      assert.equal(t.root.blocks, attr.totalBlocks);
      for (const n of nodes(t.root)) {
        const sum = n.children.reduce((x, c) => x + c.bytes, n.selfBytes);
        assert.equal(sum, n.bytes, `${n.label} ${n.file}:${n.line}`);
        // Plumbing is kept only where it allocated itself (the innermost frame), marked as such.
        if (n.kind === 'library' && plumbingGroup(n.file, n.func))
          assert.ok(n.plumbing && n.selfBytes > 0, `plumbing kept: ${n.file} ${n.func}`);
      }
      for (const l of attr.lines) {
        const b = t.beneath.get(lineKey(l.file, l.line));
        if (l.selfBytes === 0) continue;
        assert.ok(b, `no subtree for ${l.file}:${l.line}`);
        assert.equal(b.bytes, l.selfBytes, `${l.file}:${l.line}`);
        assert.equal(b.blocks, l.selfBlocks);
      }
      // The buckets hang under the root with the attribution's figures.
      for (const bk of attr.buckets) {
        const n = t.root.children.find((c) => c.kind === 'bucket' && c.bytes === bk.bytes && c.blocks === bk.blocks);
        assert.ok(n, `bucket ${bk.kind} ${bk.bytes}`);
      }
    });
  }

  it('HF Trainer: the line that trains is broken down into the model code beneath it, ≥ 90 % of its bytes', async () => {
    const s = await loadSnapshotFile(CAPTURES[0]!);
    const a = analyzeDevice(s, 0);
    const t = callTree(s, a, a.replay.peak.index);
    const attr = attributeAt(s, a, a.replay.peak);
    const top = attr.lines[0]!;
    assert.match(top.file, /hf_trainer\.py$/);
    const b = t.beneath.get(lineKey(top.file, top.line));
    assert.ok(wantsBreakdown(top.selfBytes, attr.totalBytes, b));
    assert.ok(libraryCoverage(b).share >= 0.9, `coverage ${libraryCoverage(b).share}`);
    const rows = breakdownRows(b);
    const files = new Set(rows.flatMap((r) => r.chain.map((n) => n.file.replace(/.*site-packages\//, ''))));
    // GPT-2's modeling file, the loss and the optimizer's state are where its bytes are (the capture's own stacks say so).
    assert.ok(files.has('transformers/models/gpt2/modeling_gpt2.py'), [...files].join(', '));
    assert.ok(files.has('torch/optim/adam.py'), [...files].join(', '));
    // Every row's bytes are within its parent's; top rows never exceed the line.
    assert.ok(rows.filter((r) => r.depth === 0).reduce((x, r) => x + r.bytes, 0) <= b.bytes);
    for (const r of rows) for (const n of r.chain) assert.ok(!plumbingGroup(n.file, n.func) || n.plumbing);
  });

  it('plumbing: the call machinery is folded, model code and Module.to are kept', () => {
    const site = '/venv/lib/python3.12/site-packages';
    assert.equal(plumbingGroup(`${site}/torch/nn/modules/module.py`, '_call_impl'), 'nn.Module call');
    assert.equal(plumbingGroup(`${site}/torch/nn/modules/module.py`, '_apply'), undefined);
    assert.equal(plumbingGroup(`${site}/accelerate/utils/operations.py`, '__call__'), 'accelerate');
    assert.equal(plumbingGroup(`${site}/transformers/trainer.py`, 'training_step'), 'Trainer loop');
    assert.equal(plumbingGroup(`${site}/lightning/pytorch/loops/fit_loop.py`, 'run'), 'Lightning loop');
    assert.equal(plumbingGroup('/usr/lib/python3.12/contextlib.py', 'inner'), 'Python runtime');
    for (const kept of [
      'transformers/models/gpt2/modeling_gpt2.py',
      'timm/models/vision_transformer.py',
      'torchvision/models/detection/roi_heads.py',
      'torch/nn/modules/linear.py',
      'torch/nn/functional.py',
      'torch/optim/adamw.py',
      'transformers/integrations/sdpa_attention.py',
    ]) {
      assert.equal(plumbingGroup(`${site}/${kept}`, 'forward'), undefined, kept);
    }
  });
});
