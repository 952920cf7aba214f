// Memory by module on framework runs recorded with `headroom run --modules on` on an H100
// (test/gpu/capture/frameworks/capture.sh): HF Trainer, Lightning, nanoGPT eager and compiled.
// The expected module names come from how each script builds its model, not from our output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { byModule, splitMetadata } from '../../extension/src/core/analysis/modules';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { backwardPhases, CATEGORY_LABELS } from '../../extension/src/core/timeline/categories';
import { findMarkers } from '../../extension/src/core/timeline/markers';
import { ROOT } from './helpers';

const DIR = join(ROOT, 'test', 'fixtures', 'modules');
const ACTIVATIONS = 3;
const range = (n: number) => [...Array(n).keys()];

const CASES: Record<string, { modules: string[]; libraryWhere?: RegExp; compiled?: boolean }> = {
  // Gradient checkpointing: at the peak (in backward) each block keeps its input, and the block
  // being recomputed (h.0, the last one backward reaches) its attention's activations.
  hf_trainer: {
    modules: [...range(6).map((i) => `transformer.h.${i}`), 'transformer.h.0.attn'],
    libraryWhere: /site-packages\/transformers\/models\/gpt2\/modeling_gpt2\.py$/,
  },
  // training_step calls the blocks directly: the LightningModule's forward never runs.
  lightning: { modules: [...range(4).map((i) => `blocks.${i}`), 'head'] },
  nanogpt_eager: { modules: range(6).flatMap((i) => [`h.${i}.attn`, `h.${i}.mlp`]) },
  nanogpt_compiled: { modules: ['GPT'], compiled: true },
};

const load = async (name: string) => {
  const s = await loadSnapshotFile(join(DIR, name, 'snapshot-peak.pickle.gz'));
  const a = analyzeDevice(s, 0);
  return { s, a, m: byModule(s, a, a.replay.peak.index) };
};

describe('memory by module (framework runs)', () => {
  for (const [name, want] of Object.entries(CASES)) {
    it(`${name}: the modules' bytes add up, and the model's modules are named`, async () => {
      const { a, m } = await load(name);
      assert.ok(m.recorded);
      assert.equal(m.totalBytes, a.replay.peak.requestedBytes, 'every live block at the peak is counted once');
      assert.equal(
        m.modules.reduce((x, y) => x + y.selfBytes, 0),
        m.scopedBytes,
      );
      assert.ok(m.scopedBytes > 0 && m.scopedBytes <= m.totalBytes);
      for (const st of m.modules) {
        const children = m.modules.filter((c) => c.path.startsWith(st.path + '.')).reduce((x, c) => x + c.selfBytes, 0);
        assert.equal(st.inclusiveBytes, st.selfBytes + children, st.path);
      }
      const paths = new Set(m.modules.map((x) => x.path));
      for (const p of want.modules) assert.ok(paths.has(p), `${p} in ${[...paths].join(', ')}`);
      for (const st of m.modules) {
        assert.doesNotMatch(st.path, /_orig_mod|OptimizedModule/);
        if (st.where) assert.doesNotMatch(st.where.file, /headroom_agent|torchinductor_|site-packages\/torch\//);
      }
      if (want.libraryWhere)
        assert.ok(
          m.modules.some((x) => x.where && want.libraryWhere!.test(x.where.file)),
          'a module points into the model code in site-packages',
        );
    });

    it(`${name}: at least 90 % of the activations live at the peak are credited to a module`, async () => {
      const { m } = await load(name);
      const total = m.categories.total[ACTIVATIONS]!;
      if (want.compiled) {
        // Compiled code runs no module hooks inside: everything it allocates is the compiled module's.
        const forward = m.modules.find((x) => x.path === 'GPT')!;
        assert.ok(forward.selfBytes >= 0.5 * m.scopedBytes, JSON.stringify(m.modules.map((x) => x.path)));
        return;
      }
      assert.ok(total > 0, 'the peak holds activations');
      assert.ok(m.categories.scoped[ACTIVATIONS]! >= 0.9 * total, `${m.categories.scoped[ACTIVATIONS]} of ${total}`);
    });
  }

  it('module scopes never become timeline markers; the workload’s own metadata still does', async () => {
    const { s, a } = await load('nanogpt_eager');
    const markers = findMarkers(s, a, backwardPhases(s, a));
    assert.ok(!markers.some((k) => k.label.includes('hr:')), JSON.stringify(markers.filter((k) => k.kind === 'iteration').slice(0, 3)));
    assert.deepEqual(splitMetadata('step=7\x1ehr:f:h.0.attn'), { user: 'step=7', scope: { phase: 'forward', path: 'h.0.attn' } });
    assert.deepEqual(splitMetadata('step=7'), { user: 'step=7', scope: null });
    assert.deepEqual(splitMetadata('\x1ehr:x:junk'), { user: '', scope: null });
  });

  it('headroom analyze --by module: a tree in text, by_module in JSON, a typed error for a bad --by', () => {
    const cli = join(ROOT, 'dist', 'cli.js');
    const snap = join(DIR, 'hf_trainer', 'snapshot-peak.pickle.gz');
    const text = spawnSync(process.execPath, [cli, 'analyze', snap, '--by', 'module', '--top', '0'], { encoding: 'utf8' });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /Memory by module: .* allocated inside a module/);
    assert.match(text.stdout, /\n\s+[\d.]+ \w+ .*  {6}transformer\.h\.0\.attn/);
    const json = spawnSync(process.execPath, [cli, 'analyze', snap, '--by', 'module', '--json'], { encoding: 'utf8' });
    const r = JSON.parse(json.stdout) as { by_module: { modules: { path: string }[] }; lines: { file: string }[] };
    assert.ok(r.by_module.modules.some((x) => x.path === 'transformer.h.5'));
    assert.ok(!JSON.stringify(r).includes('headroom_agent'));
    // A snapshot recorded without module scopes says how to get them, rather than an empty tree.
    const plainRun = spawnSync(
      process.execPath,
      [cli, 'analyze', join(ROOT, 'test', 'fixtures', 'snapshots', 'shared', 'mlp_train.pickle'), '--by', 'module'],
      { encoding: 'utf8' },
    );
    assert.equal(plainRun.status, 0, plainRun.stderr);
    assert.match(plainRun.stdout, /no module scopes\. Record it with `headroom run --modules on`/);
    const bad = spawnSync(process.execPath, [cli, 'analyze', snap, '--by', 'file'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--by expects line or module/);
  });
});

describe('colour by module (the timeline)', () => {
  it('each band of the module keying holds, at the peak, the bytes its module holds in the By-module figures', async () => {
    const { s, a, m } = await load('nanogpt_eager');
    const { buildTimeline } = await import('../../extension/src/core/timeline/model');
    const { lod } = await import('../../extension/src/core/timeline/lod');
    const t = buildTimeline(s, a);
    const kg = t.keyings.module;
    // Keys cover the whole run (modules that hold nothing at the peak too), in model order.
    const labels = kg.keys.slice(1).map((k) => k.label);
    for (const mod of m.modules) if (mod.selfBytes > 0) assert.ok(labels.includes(mod.path), mod.path);
    const held = m.modules.filter((x) => x.selfBytes > 0).map((x) => x.path);
    assert.deepEqual(
      labels.filter((l) => held.includes(l)),
      held,
      'the same order as the By-module tree',
    );
    // A one-column frame over the peak event: its bands, merged by key, are the live bytes per module.
    const p = a.replay.peak.index;
    const f = lod(t, { keying: 'module', x: 'index', from: p, to: p + 1, columns: 1, minBandBytes: 1 });
    const perKey = new Map<string, number>();
    for (let b = 0; b < f.bandKey.length; b++) {
      const label = kg.keys[f.bandKey[b]!]!.label;
      perKey.set(label, (perKey.get(label) ?? 0) + f.bandBytes[b]!);
    }
    for (const mod of m.modules) if (mod.selfBytes > 0) assert.equal(perKey.get(mod.path), mod.selfBytes, mod.path);
    const outside = [...perKey].filter(([k]) => !m.modules.some((x) => x.path === k)).reduce((x, [, v]) => x + v, 0);
    assert.equal(outside, m.totalBytes - m.scopedBytes);
  });

  it('a run recorded without module scopes says so in its one key', async () => {
    const s = await loadSnapshotFile(join(ROOT, 'test', 'fixtures', 'runs', 'lm_train', 'snapshot-peak.pickle'));
    const { buildTimeline } = await import('../../extension/src/core/timeline/model');
    const t = buildTimeline(s, analyzeDevice(s, 0));
    assert.equal(t.keyings.module.keys.length, 1);
    assert.match(t.keyings.module.keys[0]!.label, /--modules on/);
  });
});

describe("against PyTorch's own module tracker (MemTracker, torch 2.11)", () => {
  // test/gpu/capture/frameworks/memtracker.py: nanoGPT eager, its third step under
  // torch.distributed._tools.mem_tracker.MemTracker, the whole run under headroom run --modules on.
  // memtracker.txt is MemTracker's own output line; the component tracking of newer torch
  // (torch.accelerator.memory.component_tracking) is absent from 2.11, as the line says.
  const MT = join(DIR, 'memtracker');
  const theirs = JSON.parse(readFileSync(join(MT, 'memtracker.txt'), 'utf8').replace(/^MEMTRACKER /, '')) as {
    component_tracking: boolean;
    requested_peak: number;
    peak: Record<string, Record<string, number>>;
  };
  const at = theirs.peak['cuda:0']!;

  it('parameters, gradients and optimizer state at the peak are the same bytes; activations and temporaries within 0.1 %', async () => {
    assert.equal(theirs.component_tracking, false);
    const s = await loadSnapshotFile(join(MT, 'snapshot-exit.pickle.gz'));
    const a = analyzeDevice(s, 0);
    assert.equal(a.replay.peak.requestedBytes, theirs.requested_peak, "the run's peak is PyTorch's");
    const m = byModule(s, a, a.replay.peak.index);
    const ours = (label: (typeof CATEGORY_LABELS)[number]) => m.categories.total[CATEGORY_LABELS.indexOf(label)]!;
    assert.equal(ours('parameters'), at['_MemRefType.PARAM']);
    assert.equal(ours('gradients'), at['_MemRefType.GRAD']);
    assert.equal(ours('optimizer state'), at['_MemRefType.OPT']);
    const near = (x: number, y: number) => Math.abs(x - y) <= 0.001 * y;
    assert.ok(near(ours('activations'), at['_MemRefType.ACT']!), `${ours('activations')} vs ${at['_MemRefType.ACT']}`);
    assert.ok(near(ours('temporaries'), at['_MemRefType.TEMP']!), `${ours('temporaries')} vs ${at['_MemRefType.TEMP']}`);
    // Every activation MemTracker counts was made inside a module Headroom names.
    const inModules = m.categories.scoped[CATEGORY_LABELS.indexOf('activations')]!;
    assert.ok(near(inModules, at['_MemRefType.ACT']!), `${inModules} in modules`);
  });
});
