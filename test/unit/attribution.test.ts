import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import type { At } from '../../extension/src/core/analysis/deviceAnalysis';
import { analyzeDevice, defaultDevice, resolveAt } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { liveAt } from '../../extension/src/core/analysis/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { fixture, fixtures, python, ROOT } from './helpers';

interface RefLine {
  file: string;
  line: number;
  self: number;
  inclusive: number;
  blocks: number;
}
interface Ref {
  index: number;
  total: number;
  no_user_frame_bytes: number;
  no_user_frame_blocks: number;
  lines: RefLine[];
}

const key = (l: { file: string; line: number }) => `${l.file}:${l.line}`;

describe('attribution against an independent Python computation', () => {
  for (const f of fixtures()) {
    for (const at of ['peak', 'end', 'mid'] as const) {
      it(`${f.name} at ${at}: every line's self and inclusive bytes, and the buckets, agree`, async () => {
        const s = await loadSnapshotFile(f.path);
        const d = defaultDevice(s)!;
        const a = analyzeDevice(s, d);
        const target: At = at === 'mid' ? Math.floor(a.replay.n / 2) : at;
        const ref = JSON.parse(python('attribution_ref.py', [f.path, String(d), String(target)])) as Ref;
        const instant = resolveAt(a, target);
        assert.equal(instant.index, ref.index);
        const attr = attributeAt(s, a, instant);
        assert.equal(attr.totalBytes, ref.total);
        assert.equal(attr.totalBytes, instant.requestedBytes, 'attribution covers exactly the live bytes');
        const ours = new Map(attr.lines.map((l) => [key(l), l]));
        const theirs = ref.lines.filter((l) => l.self > 0 || l.inclusive > 0);
        assert.equal(ours.size, theirs.length);
        for (const l of theirs) {
          const o = ours.get(key(l));
          assert.ok(o, `missing line ${key(l)}`);
          assert.deepEqual([o.selfBytes, o.inclusiveBytes, o.selfBlocks], [l.self, l.inclusive, l.blocks], key(l));
        }
        const bucketBytes = attr.buckets.reduce((n, b) => n + b.bytes, 0);
        const bucketBlocks = attr.buckets.reduce((n, b) => n + b.blocks, 0);
        assert.equal(bucketBytes, ref.no_user_frame_bytes);
        assert.equal(bucketBlocks, ref.no_user_frame_blocks);
        // Nothing dropped: lines (self) + buckets = everything live.
        assert.equal(attr.lines.reduce((n, l) => n + l.selfBytes, 0) + bucketBytes, attr.totalBytes);
      });
    }
  }
});

describe('attribution against PyTorch’s own view of the final state', () => {
  // `_memory_viz.memory()` folds every block of the dump by its filtered stack (outermost first,
  // basename:line:name); the capture scripts stored its output in the truth files.
  for (const f of fixtures().filter((x) => typeof x.truth?.memory_viz_folded === 'string')) {
    it(`${f.name}: bytes per stack of the live blocks equal PyTorch's folded stacks`, async () => {
      const theirs = new Map<string, number>();
      for (const row of f.truth!.memory_viz_folded!.split('\n')) {
        const m = /^stream_\d+;active_allocated;(.*) (\d+)$/.exec(row);
        if (!m || m[1] === '<gaps>') continue;
        theirs.set(m[1]!, (theirs.get(m[1]!) ?? 0) + Number(m[2]));
      }
      const s = await loadSnapshotFile(f.path);
      const d = defaultDevice(s)!;
      const a = analyzeDevice(s, d);
      const allocated = new Set<number>();
      for (const seg of s.segments)
        if (seg.device === d) for (const b of seg.blocks) if (b.state === 'active_allocated') allocated.add(b.address);
      const e = a.replay.elements;
      const ours = new Map<string, number>();
      for (const k of liveAt(e, a.replay.n - 1)) {
        if (!allocated.has(e.addr[k]!)) continue;
        const frames = [...s.stacks.get(e.stack[k]!)].reverse();
        const folded = frames.length
          ? frames.map((fr) => `${basename(s.frames.fileOf(fr))}:${s.frames.lineOf(fr)}:${s.frames.nameOf(fr)}`).join(';')
          : '<non-python>';
        ours.set(folded, (ours.get(folded) ?? 0) + e.size[k]!);
      }
      assert.deepEqual(new Map([...ours].sort()), new Map([...theirs].sort()));
    });
  }
});

describe('memory without a Python stack is named, never dropped', () => {
  it('a training run (stacks=python) has a non-empty backward bucket tied to the backward() line', async () => {
    const s = await loadSnapshotFile(fixture('mlp_train').path);
    const a = analyzeDevice(s, 0);
    // At the peak and at the moment the backward pass holds the most frameless memory.
    const attr = attributeAt(s, a, a.replay.peak);
    const bw = attr.buckets.find((b) => b.kind === 'backward');
    assert.ok(bw && bw.bytes > 0, 'backward bucket at the peak');
    const site = bw.sites?.[0];
    assert.ok(site, 'the backward() call site is known');
    // public.py line 28 of the capture is `loss.backward()` (its frames say so: _make_grads is called from it).
    const callers = new Set<string>();
    for (let st = 1; st < s.stacks.size; st++) {
      const fr = [...s.stacks.get(st)];
      const i = fr.findIndex((x) => s.frames.nameOf(x) === '_make_grads');
      const user = fr.slice(i).find((x) => !/site-packages/.test(s.frames.fileOf(x)));
      if (i >= 0 && user !== undefined) callers.add(`${s.frames.fileOf(user)}:${s.frames.lineOf(user)}`);
    }
    assert.deepEqual([...callers], [`${site.file}:${site.line}`]);
  });

  it('with stacks=all the backward bucket names the autograd nodes', async () => {
    const s = await loadSnapshotFile(fixture('mlp_train_cpp_stacks').path);
    const a = analyzeDevice(s, 0);
    let named = 0;
    for (let i = 0; i < a.replay.n; i += 25) {
      const bw = attributeAt(s, a, resolveAt(a, i)).buckets.find((b) => b.kind === 'backward');
      for (const n of bw?.nodes ?? []) {
        assert.match(n.name, /Backward\d*$/);
        named++;
      }
    }
    assert.ok(named > 0);
  });

  it('checkpoint recomputation during backward counts as backward memory', async () => {
    const s = await loadSnapshotFile(fixture('transformer_amp_ckpt').path);
    const a = analyzeDevice(s, 0);
    const bw = attributeAt(s, a, a.replay.peak).buckets.find((b) => b.kind === 'backward');
    const recompute = bw?.nodes?.find((n) => n.name === 'checkpoint recomputation');
    assert.ok(recompute && recompute.bytes > 0);
    // Those blocks carry only torch frames, among them torch/utils/checkpoint.py.
    const e = a.replay.elements;
    let seen = 0;
    for (const k of liveAt(e, a.replay.peak.index)) {
      if (a.backward.node.get(k) !== 'checkpoint recomputation') continue;
      const files = [...s.stacks.get(e.stack[k]!)].map((f) => s.frames.fileOf(f));
      assert.ok(files.some((f) => f.endsWith('torch/utils/checkpoint.py')));
      assert.ok(files.every((f) => f.includes('/site-packages/') || !f.endsWith('.py')));
      seen++;
    }
    assert.equal(seen, recompute.blocks);
  });

  it('global annotations name the autograd node of frameless backward allocations', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'headroom-ann-')), 'ann.pickle');
    execFileSync('python3', [join(ROOT, 'test', 'reference', 'downgrade.py'), fixture('mlp_train').path, out, 'node-annotations']);
    const s = await loadSnapshotFile(out);
    const a = analyzeDevice(s, 0);
    const bw = attributeAt(s, a, a.replay.peak).buckets.find((b) => b.kind === 'backward');
    assert.ok(bw);
    assert.deepEqual(
      bw.nodes?.map((n) => [n.name, n.bytes]),
      [['AddmmBackward0', bw.bytes]],
    );
  });

  it('blocks live before recording started are their own bucket', async () => {
    const s = await loadSnapshotFile(fixture('mlp_leak_total_loss').path);
    const a = analyzeDevice(s, 0);
    assert.ok(a.replay.start.blocks > 0);
    const before = attributeAt(s, a, a.replay.peak).buckets.find((b) => b.kind === 'before_recording');
    assert.ok(before && before.bytes > 0);
    // The pre-window blocks without any stack are exactly the bucket; the others have lines.
    const e = a.replay.elements;
    let frameless = 0;
    for (const k of liveAt(e, a.replay.peak.index)) if (e.alloc[k]! < 0 && s.stacks.get(e.stack[k]!).length === 0) frameless += e.size[k]!;
    assert.equal(before.bytes, frameless);
    assert.ok(before.bytes <= a.replay.start.requestedBytes);
  });

  it('user-code globs move a library file into the lines', async () => {
    const s = await loadSnapshotFile(fixture('mlp_train').path);
    const a = analyzeDevice(s, 0, { include: ['**/torch/nn/modules/**'], exclude: [] });
    const lines = attributeAt(s, a, a.replay.peak).lines;
    assert.ok(lines.some((l) => /torch\/nn\/modules\//.test(l.file)));
    const b = analyzeDevice(s, 0, { include: [], exclude: ['**/public.py'] });
    assert.ok(attributeAt(s, b, b.replay.peak).lines.every((l) => !l.file.endsWith('public.py')));
  });
});
