import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { annotate, DEFAULT_ANNOTATE, heatOf } from '../../extension/src/core/source/annotations';
import { diffAttributions } from '../../extension/src/core/source/diff';
import { lineText } from '../../extension/src/core/source/lineWords';
import { contentHash, shiftLine } from '../../extension/src/core/source/lineShift';
import { expandMappings, impliedMapping, PathMapper } from '../../extension/src/core/source/pathMap';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { execFileSync } from 'node:child_process';
import { fixture } from './helpers';

describe('path mapping', () => {
  const files = ['/home/me/proj/train.py', '/home/me/proj/model/layers.py', '/home/me/proj/data/layers.py', '/home/me/proj/utils.py'];
  it('maps cluster paths to the workspace by longest common suffix', () => {
    const m = new PathMapper(files);
    assert.deepEqual(m.resolve('/scratch/job42/proj/train.py'), { kind: 'mapped', local: '/home/me/proj/train.py', how: 'suffix' });
    assert.deepEqual(m.resolve('/scratch/job42/proj/model/layers.py'), {
      kind: 'mapped',
      local: '/home/me/proj/model/layers.py',
      how: 'suffix',
    });
    assert.deepEqual(m.resolve('/home/me/proj/utils.py'), { kind: 'mapped', local: '/home/me/proj/utils.py', how: 'same' });
    assert.deepEqual(m.resolve('/opt/conda/lib/python3.12/site-packages/torch/nn/modules/module.py'), { kind: 'unmapped' });
  });

  it('reports a tie as ambiguous, and a mapping learned from one answer resolves it', () => {
    const m = new PathMapper(files);
    const r = m.resolve('/scratch/layers.py');
    assert.deepEqual(r, { kind: 'ambiguous', candidates: ['/home/me/proj/data/layers.py', '/home/me/proj/model/layers.py'] });
    const learned = impliedMapping('/scratch/job/model/layers.py', '/home/me/proj/model/layers.py');
    assert.deepEqual(learned, { '/scratch/job': '/home/me/proj' });
    assert.deepEqual(new PathMapper(files, learned).resolve('/scratch/job/data/layers.py'), {
      kind: 'mapped',
      local: '/home/me/proj/data/layers.py',
      how: 'mapping',
    });
  });

  it('applies explicit mappings first, longest prefix winning, with ${workspaceFolder}', () => {
    const maps = expandMappings({ '/remote': '/elsewhere', '/remote/proj': '${workspaceFolder}' }, '/home/me/proj');
    const m = new PathMapper(files, maps);
    assert.deepEqual(m.resolve('/remote/proj/model/layers.py'), { kind: 'mapped', local: '/home/me/proj/model/layers.py', how: 'mapping' });
    assert.deepEqual(expandMappings({ a: '${workspaceFolder}/x' }, undefined), {});
  });
});

describe('line shifting under edits', () => {
  it('moves lines after an insertion, keeps earlier ones, drops replaced ones', () => {
    // "foo\nbar\n" typed at the start of line 3 (0-based).
    const insert = { startLine: 3, startChar: 0, endLine: 3, endChar: 0, insertedLineBreaks: 2 };
    assert.deepEqual(
      [0, 2, 3, 4, 10].map((l) => shiftLine(l, insert)),
      [0, 2, 3, 6, 12],
    );
    // Lines 5–7 deleted: the range runs from the start of line 5 to the start of line 8.
    const del = { startLine: 5, startChar: 0, endLine: 8, endChar: 0, insertedLineBreaks: 0 };
    assert.deepEqual(
      [4, 5, 6, 7, 8, 9].map((l) => shiftLine(l, del)),
      [4, undefined, undefined, undefined, 5, 6],
    );
    // A line joined to the previous one (its line break deleted): its head moves up, it is gone.
    const join = { startLine: 2, startChar: 10, endLine: 3, endChar: 0, insertedLineBreaks: 0 };
    assert.deepEqual(
      [2, 3, 4].map((l) => shiftLine(l, join)),
      [2, 2, 3],
    );
    // A change inside one line keeps it.
    assert.equal(shiftLine(7, { startLine: 7, startChar: 4, endLine: 7, endChar: 9, insertedLineBreaks: 0 }), 7);
  });

  it('hashes text as the agent hashes files (sha256 of UTF-8, 16 hex digits)', () => {
    const text = 'x = 1  # é\n';
    const py = execFileSync('python3', ['-c', 'import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:16])', text], {
      encoding: 'utf8',
    }).trim();
    assert.equal(contentHash(text), py);
  });
});

describe('choosing lines and texts', () => {
  it('annotates the lines over the threshold, lenses the top ones, and reports unmapped files', async () => {
    const s = await loadSnapshotFile(fixture('leaky_demo').path);
    const a = analyzeDevice(s, 0);
    const attr = attributeAt(s, a, a.replay.peak);
    const local = (f: string) => (f.endsWith('train_leaky.py') ? '/ws/train_leaky.py' : undefined);
    const out = annotate(attr, local);
    const lines = out.byFile.get('/ws/train_leaky.py')!;
    const floor = Math.max(DEFAULT_ANNOTATE.minBytes, DEFAULT_ANNOTATE.minShare * attr.totalBytes);
    const expected = attr.lines.filter((l) => l.file.endsWith('train_leaky.py') && (l.selfBytes >= floor || l.inclusiveBytes >= floor));
    assert.deepEqual(
      lines.map((l) => l.line),
      expected.map((l) => l.line).sort((x, y) => x - y),
    );
    const top = lines.reduce((x, y) => (y.selfBytes > x.selfBytes ? y : x));
    assert.ok(top.lens && top.heat === heatOf(top.selfBytes / attr.totalBytes));
    // What a line shows, as data (the editor words it): its own bytes where they reach the floor, else the calls' bytes.
    assert.equal(top.figure.kind, 'self');
    assert.match(lineText(top, 'at peak'), /^▲ \d+(\.\d+)? (MiB|GiB) at peak/);
    for (const l of lines) {
      assert.equal(l.figure.kind, l.selfBytes >= floor ? 'self' : 'calls', `line ${l.line}`);
      if (l.figure.kind === 'self' && l.figure.inclusive) assert.ok(l.inclusiveBytes >= 2 * l.selfBytes, `line ${l.line}`);
    }
    assert.ok(lines.filter((l) => l.lens).length <= DEFAULT_ANNOTATE.lensTopN);
    const zeroSelf = lines.find((l) => l.selfBytes === 0);
    assert.ok(zeroSelf && zeroSelf.figure.kind === 'calls');
    assert.match(lineText(zeroSelf, 'at peak'), /^⊂ .* in calls$/);
    // run_recorded.py (the capture harness) is a user frame that maps to nothing here.
    assert.ok(out.unmapped.some((u) => u.file.endsWith('run_recorded.py')));
  });

  it('diffs two peaks line by line', async () => {
    const load = async (n: string) => {
      const s = await loadSnapshotFile(fixture(n).path);
      const a = analyzeDevice(s, 0);
      return attributeAt(s, a, a.replay.peak);
    };
    const [before, after] = [await load('mlp_train'), await load('mlp_leak_total_loss')];
    const d = diffAttributions(before, after);
    for (const l of d.lines) {
      const b = before.lines.find((x) => x.file === l.file && x.line === l.line)?.selfBytes ?? 0;
      const c = after.lines.find((x) => x.file === l.file && x.line === l.line)?.selfBytes ?? 0;
      assert.equal(l.deltaBytes, c - b);
      assert.notEqual(l.deltaBytes, 0);
    }
    assert.equal(diffAttributions(before, before).lines.length, 0);
  });
});
