// One classification of blocks on every surface (issue 37): on the demo capture and two real ones
// (a transformer with AMP and checkpointing; an MLP training loop), the kinds of what is live at
// the peak are the same in `headroom analyze --json` (run as a process), its text report, the
// editor's annotations (decorations, lenses and hovers read them), the assistants' summary tool
// and the timeline's bands at the peak. And the two verdicts the kinds add: the demo's leak is
// "leaked" wherever its lines are shown, and cuBLAS's workspaces are "library workspaces".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { detectLeaks } from '../../extension/src/core/diagnose/leaks';
import { blockKinds } from '../../extension/src/core/kinds/blockKinds';
import { KIND_LABELS, Kind } from '../../extension/src/core/kinds/kindLabels';
import type { KindLabel } from '../../extension/src/core/kinds/kindLabels';
import type { AnalyzeReport } from '../../extension/src/core/report';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { annotate } from '../../extension/src/core/source/annotations';
import { CATEGORY_LABELS, Category } from '../../extension/src/core/timeline/categories';
import { lod } from '../../extension/src/core/timeline/lod';
import { buildTimeline } from '../../extension/src/core/timeline/model';
import { MERGE_ALL } from '../../extension/src/core/timeline/protocol';
import { summaryTool } from '../../extension/src/core/tools/summary';
import { OWN_SNAPSHOTS, ROOT } from './helpers';

const CAPTURES = ['leaky_demo.pickle', 'transformer_amp_ckpt.pickle', 'e2e_train_b128.pickle'].map((f) => join(OWN_SNAPSHOTS, f));
const CLI = join(ROOT, 'dist', 'cli.js');
type Kinds = { kind: KindLabel; bytes: number }[];
const asMap = (k: Kinds) => Object.fromEntries(k.map((x) => [x.kind, x.bytes]));

function cli(...args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('kinds of blocks', () => {
  it("extend the timeline's lifetime roles, by the same numbers and names", () => {
    assert.deepEqual(KIND_LABELS.slice(0, CATEGORY_LABELS.length), [...CATEGORY_LABELS]);
    assert.equal(Number(Kind.Other), Number(Category.Other));
    assert.equal(Number(Kind.Parameter), Number(Category.Parameter));
  });

  for (const file of CAPTURES) {
    it(`agree on every surface: ${file.split('/').pop()}`, async () => {
      const json = JSON.parse(cli('analyze', file, '--json', '--top', '0')) as AnalyzeReport;
      const text = cli('analyze', file, '--top', '0');
      const s = await loadSnapshotFile(file);
      const a = analyzeDevice(s, defaultDevice(s)!);
      assert.equal(json.peak.trace_index, a.replay.peak.index);
      const total = json.kinds.reduce((t, k) => t + k.bytes, 0);
      assert.equal(total, json.at.requested_bytes, 'the kinds add up to what is live');

      // The CLI's text: each line's kind column is its main kind in the JSON.
      for (const l of json.lines.filter((x) => x.self_bytes > 0)) {
        const row = text.split('\n').find((r) => r.endsWith(`${l.file}:${l.line} (${l.function})`));
        assert.ok(row, `${l.file}:${l.line} in the text report`);
        const all = l.kinds.reduce((t, k) => t + k.bytes, 0);
        const shown = `${l.kinds[0]!.kind}${l.kinds[0]!.bytes < 0.9 * all ? '+' : ''}`;
        assert.match(row, new RegExp(`  ${shown.replace('+', '\\+')} +/`), row);
      }
      assert.match(text, new RegExp(`^By kind +${json.kinds.map((k) => k.kind).join('.*')}`, 'm'));

      // The editor's annotations (every line, no thresholds): the same kinds per line.
      const ann = annotate(attributeAt(s, a, a.replay.peak, true), (f) => f, {
        minShare: 0,
        minBytes: 0,
        inclusiveFactor: 2,
        lensTopN: 5,
        lensMinShare: 0.05,
      });
      for (const l of json.lines.filter((x) => x.self_bytes > 0)) {
        const mine = ann.byFile.get(l.file)?.find((x) => x.line === l.line);
        assert.ok(mine, `${l.file}:${l.line} annotated`);
        assert.deepEqual(asMap(mine.kinds), asMap(l.kinds), `${l.file}:${l.line}`);
      }

      // The timeline: its bands at the peak, by kind.
      const m = buildTimeline(s, a);
      const f = lod(m, {
        keying: 'category',
        x: 'index',
        from: a.replay.peak.index,
        to: a.replay.peak.index + 1,
        columns: 1,
        minBandBytes: MERGE_ALL,
      });
      assert.equal(f.sample[0], a.replay.peak.index);
      const bands: Record<string, number> = {};
      for (let b = f.bandOff[0]!; b < f.bandOff[1]!; b++) {
        const label = m.keyings.category.keys[f.bandKey[b]!]!.label;
        bands[label] = (bands[label] ?? 0) + f.bandBytes[b]!;
      }
      assert.deepEqual(bands, asMap(json.kinds));

      // The assistants' summary: the same totals, in its words.
      const answer = await summaryTool.run({ path: file });
      for (const k of json.kinds) assert.match(answer, new RegExp(`by kind: .*${k.kind} `));
    });
  }

  it('the demo\'s leak is "leaked": the blocks the leak check holds against its lines, wherever shown', async () => {
    const file = CAPTURES[0]!;
    const s = await loadSnapshotFile(file);
    const a = analyzeDevice(s, defaultDevice(s)!);
    const leak = detectLeaks(s, a);
    assert.ok(leak.leaking);
    const json = JSON.parse(cli('analyze', file, '--json', '--top', '0')) as AnalyzeReport;
    for (const l of leak.lines) {
      const line = json.lines.find((x) => x.line === l.line && x.file === l.file)!;
      const leaked = asMap(line.kinds).leaked ?? 0;
      // At the peak the loop is over: all but the last iteration's own blocks are kept ones.
      assert.ok(leaked >= 0.9 * line.self_bytes, `${l.line}: ${leaked} of ${line.self_bytes} leaked`);
    }
    // Nowhere else.
    const kinds = blockKinds(s, a);
    const lines = new Set(leak.lines.map((l) => l.line));
    const e = a.replay.elements;
    for (let k = 0; k < e.count; k++) {
      if (kinds[k] !== Kind.Leaked) continue;
      const fr = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
      assert.ok(lines.has(s.frames.lineOf(fr)));
    }
  });

  it("cuBLAS's workspaces are library workspaces: never freed, one of its sizes, one per place, and no more of cuBLASLt's than of cuBLAS's", async () => {
    for (const file of CAPTURES) {
      const s = await loadSnapshotFile(file);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const kinds = blockKinds(s, a);
      const e = a.replay.elements;
      const found: number[] = [];
      for (let k = 0; k < e.count; k++) if (kinds[k] === Kind.Workspace) found.push(k);
      assert.ok(found.length >= 2, `${file}: ${found.length}`);
      for (const k of found) {
        assert.ok(e.free[k]! >= a.replay.n, 'kept to the end');
        assert.ok([32 << 20, 1 << 20].includes(e.size[k]!), `${e.size[k]}`);
      }
      const big = found.filter((k) => e.size[k] === 32 << 20).length;
      assert.ok(found.length - big <= big);
    }
  });
});
