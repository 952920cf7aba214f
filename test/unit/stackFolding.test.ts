// The hover's rules on real captures' stacks (core/source/stackFolding.ts and
// core/analysis/compactBreakdown.ts): which frames of the largest block's stack are listed, which
// are folded onto a listed frame ("via 7 library frames") and which only counted. The expected
// values are counted here from the raw stacks and the frames' classification, apart from stackOf.
import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { breakdownViews } from '../../extension/src/core/analysis/breakdownView';
import { callTree } from '../../extension/src/core/analysis/callTree';
import { compactBreakdown, HOVER_ROWS } from '../../extension/src/core/analysis/compactBreakdown';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { FrameKind } from '../../extension/src/core/analysis/userCode';
import { buildReport } from '../../extension/src/core/report';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { ClassNames } from '../../extension/src/core/source/classNames';
import { stackOf } from '../../extension/src/core/source/lineFacts';
import { foldStack, LIBRARY_SHOWN, USER_SHOWN } from '../../extension/src/core/source/stackFolding';
import { fixture, fixtures, ROOT } from './helpers';

const MODULES = join(ROOT, 'test', 'fixtures', 'modules');

interface Raw {
  file: string;
  line: number;
  name: string;
  kind: FrameKind;
}

interface Top {
  s: Snapshot;
  a: DeviceAnalysis;
  element: number;
  /** The block's stack, innermost first, each frame with its kind. */
  raw: Raw[];
}

/** The largest block of the line `file:line` (a suffix) holds at the peak, as the hover picks it. */
async function largestOf(path: string, file: string, line: number): Promise<Top> {
  const s = await loadSnapshotFile(path);
  const a = analyzeDevice(s, 0);
  const stat = attributeAt(s, a, a.replay.peak, true).lines.find((l) => l.file.endsWith(file) && l.line === line);
  assert.ok(stat?.largest[0], `${file}:${line} holds a block at the peak`);
  const element = stat.largest[0].element;
  const raw = Array.from(s.stacks.get(a.replay.elements.stack[element]!), (f) => ({
    file: s.frames.fileOf(f),
    line: s.frames.lineOf(f),
    name: s.frames.nameOf(f),
    kind: a.classifier.kind(f),
  }));
  return { s, a, element, raw };
}

const isUser = (f: Raw) => f.kind === FrameKind.User;
const afterSitePackages = (file: string) => file.slice(file.indexOf('site-packages/') + 'site-packages/'.length);

describe('the hover’s stack: which frames are listed, folded and counted', () => {
  it('the optimizer step (e2e train.py:28): four user frames listed whole, torch’s frames folded onto the next user frame', async () => {
    const t = await largestOf(fixture('e2e_train_b64').path, '/train.py', 28);
    const st = foldStack(stackOf(t.s, t.a, t.element), { library: false, breakdown: false });
    const users = t.raw.filter(isUser);
    assert.equal(users.length, USER_SHOWN + 1, 'a stack of USER_SHOWN + 1 user frames');
    assert.deepEqual(
      st.frames.map((f) => `${f.place}:${f.line} ${f.name}`),
      users.map((f) => `${basename(f.file)}:${f.line} ${f.name}`),
    );
    assert.deepEqual(st.frames[0]!.place, 'train.py');
    // Each listed frame carries the frames hidden between it and the one listed before.
    const via = users.map((u, i) => t.raw.indexOf(u) - (i ? t.raw.indexOf(users[i - 1]!) + 1 : 0));
    assert.deepEqual(
      st.frames.map((f) => f.via),
      via,
    );
    assert.ok(via[0]! > 0, 'torch.optim frames inside the user line');
    assert.deepEqual([st.trailing, st.more, st.compact, st.toggle], [t.raw.length - 1 - t.raw.indexOf(users.at(-1)!), 0, false, true]);
  });

  it('the same stack with library frames shown: torch’s Python frames listed by their place in the library, C++ frames still folded', async () => {
    const t = await largestOf(fixture('e2e_train_b64').path, '/train.py', 28);
    const st = foldStack(stackOf(t.s, t.a, t.element, true), { library: true, breakdown: true });
    const python = t.raw.filter((f) => f.kind !== FrameKind.Cpp);
    assert.ok(python.length <= LIBRARY_SHOWN + USER_SHOWN);
    assert.deepEqual(
      st.frames.map((f) => `${f.user ? 'user' : 'library'} ${f.place}:${f.line}`),
      python.map((f) => `${isUser(f) ? `user ${basename(f.file)}` : `library ${afterSitePackages(f.file)}`}:${f.line}`),
    );
    assert.match(st.frames[0]!.place, /^torch\/optim\/\S+\.py$/);
    assert.equal(
      st.frames.reduce((n, f) => n + f.via, 0) + st.trailing,
      t.raw.length - python.length,
      'every C++ frame is folded, none listed',
    );
    // A breakdown beside the stack does not make it compact while library frames are shown.
    assert.deepEqual([st.more, st.compact, st.toggle], [0, false, true]);
  });

  it('compact beside a breakdown (leaky demo’s evaluate, train_leaky.py:38): the line’s own frame, the rest counted', async () => {
    const t = await largestOf(fixture('leaky_demo').path, '/train_leaky.py', 38);
    const st = foldStack(stackOf(t.s, t.a, t.element), { library: false, breakdown: true });
    const first = t.raw.findIndex(isUser);
    assert.equal(st.compact, true);
    assert.deepEqual(
      st.frames.map((f) => [f.place, f.line, f.name, f.via]),
      [['train_leaky.py', 38, 'evaluate', first]],
    );
    assert.ok(first >= 2, 'nn.Module frames inside evaluate');
    assert.equal(st.more, t.raw.length - first - 1);
    assert.equal(st.trailing, 0);
  });

  it('a deep stack (nanoGPT eager): past three user frames the rest is counted, not listed', async () => {
    const path = join(MODULES, 'nanogpt_eager', 'snapshot-peak.pickle.gz');
    const t = await largestOf(path, '/nanogpt.py', 32);
    const users = t.raw.filter(isUser);
    assert.ok(users.length > USER_SHOWN + 1, `${users.length} user frames`);
    const st = foldStack(stackOf(t.s, t.a, t.element), { library: false, breakdown: false });
    assert.deepEqual(
      st.frames.map((f) => `${f.place}:${f.line}`),
      users.slice(0, USER_SHOWN).map((f) => `${basename(f.file)}:${f.line}`),
    );
    assert.equal(st.more, t.raw.length - 1 - t.raw.indexOf(users[USER_SHOWN - 1]!));
    assert.equal(st.trailing, 0);
  });

  it('many library frames (Lightning, lightning_mlp.py:16): LIBRARY_SHOWN listed, the rest counted, every user frame kept', async () => {
    const path = join(MODULES, 'lightning', 'snapshot-peak.pickle.gz');
    const t = await largestOf(path, '/lightning_mlp.py', 16);
    const libs = t.raw.filter((f) => f.kind === FrameKind.Library);
    assert.ok(libs.length > LIBRARY_SHOWN, `${libs.length} library frames`);
    assert.ok(!t.raw.some((f) => f.kind === FrameKind.Cpp), 'no C++ frames in this capture');
    const st = foldStack(stackOf(t.s, t.a, t.element, true), { library: true, breakdown: false });
    const kept = new Set(libs.slice(0, LIBRARY_SHOWN));
    assert.deepEqual(
      st.frames.map((f) => `${f.file}:${f.line}`),
      t.raw.filter((f) => isUser(f) || kept.has(f)).map((f) => `${f.file}:${f.line}`),
    );
    assert.equal(st.more, libs.length - LIBRARY_SHOWN);
  });

  it('on every capture’s top lines: each frame of the stack is listed, folded onto a listed frame, or counted, once', async () => {
    let checked = 0;
    for (const fx of fixtures()) {
      const s = await loadSnapshotFile(fx.path);
      const d = defaultDevice(s);
      if (d === undefined) continue;
      const a = analyzeDevice(s, d);
      for (const l of attributeAt(s, a, a.replay.peak, true).lines.slice(0, 3)) {
        const top = l.largest[0];
        if (!top) continue;
        const n = s.stacks.get(a.replay.elements.stack[top.element]!).length;
        for (const breakdown of [false, true]) {
          const st = foldStack(stackOf(s, a, top.element), { library: false, breakdown });
          const listed = st.frames.length + st.frames.reduce((x, f) => x + f.via, 0) + st.trailing + st.more;
          assert.equal(listed, n, `${fx.name} ${l.file}:${l.line}`);
          assert.ok(st.frames.every((f) => f.user));
          assert.ok(st.frames.length <= (breakdown ? 2 : USER_SHOWN + 1));
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} stacks`);
  });
});

describe('the hover’s breakdown rows', () => {
  async function summary(path: string) {
    const s = await loadSnapshotFile(path);
    const a = analyzeDevice(s, 0);
    const { report } = buildReport(s, a, 'peak', 20);
    const tree = callTree(s, a, report.at.trace_index, new ClassNames());
    return { report, tree, views: breakdownViews(tree, report) };
  }
  const key = (r: { depth: number; bytes: number; names: string[]; file: string; line: number }) =>
    `${r.depth} ${r.bytes} ${r.names.join(' › ')} ${r.file}:${r.line}`;

  it('HF Trainer: at most HOVER_ROWS of the summary page’s rows, the others counted, each named by its file’s name', async () => {
    const { report, tree, views } = await summary(join(MODULES, 'hf_trainer', 'snapshot-peak.pickle.gz'));
    const top = report.lines[0]!;
    const page = views.find((v) => v.file === top.file && v.line === top.line)!;
    const b = compactBreakdown(tree, top.file, top.line, top.self_bytes, report.at.requested_bytes)!;
    assert.ok(b.rows.length <= HOVER_ROWS && b.rows.length > 0);
    const full = new Set(page.rows.map(key));
    for (const r of b.rows) assert.ok(full.has(key(r)), key(r));
    assert.equal(b.more, page.rows.length - b.rows.length);
    assert.ok(b.more > 0);
    assert.deepEqual(b.folded, page.folded);
    for (const r of b.rows) assert.equal(r.where, r.file ? `${basename(r.file)}:${r.line}` : undefined);
  });

  it('leaky demo’s evaluate: the whole breakdown (container.py, then activation.py), and none for a small line', async () => {
    const { report, tree } = await summary(fixture('leaky_demo').path);
    const at = (line: number) => report.lines.find((l) => l.file.endsWith('/train_leaky.py') && l.line === line)!;
    const b = compactBreakdown(tree, at(38).file, 38, at(38).self_bytes, report.at.requested_bytes)!;
    assert.deepEqual(
      b.rows.map((r) => [r.depth, r.where]),
      [
        [0, 'container.py:253'],
        [1, 'activation.py:143'],
      ],
    );
    assert.equal(b.more, 0);
    const small = report.lines.find((l) => l.self_bytes > 0 && l.self_bytes / report.at.requested_bytes < 0.25)!;
    assert.equal(compactBreakdown(tree, small.file, small.line, small.self_bytes, report.at.requested_bytes), undefined);
  });
});
