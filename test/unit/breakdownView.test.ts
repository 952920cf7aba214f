// The breakdown under a top line as the summary page gets it (core/analysis/breakdownView.ts) and
// as the hover shortens it, on real captures: it must be `headroom analyze`'s own rows, and each
// row's bytes must be what the snapshot's stacks say (counted here from the raw stacks, apart from
// the call tree).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { breakdownRows, compactRows } from '../../extension/src/core/analysis/breakdown';
import { breakdownViews } from '../../extension/src/core/analysis/breakdownView';
import { callTree } from '../../extension/src/core/analysis/callTree';
import { lineKey } from '../../extension/src/core/analysis/callNode';
import { liveAt } from '../../extension/src/core/analysis/replay';
import { FrameKind } from '../../extension/src/core/analysis/userCode';
import { isFromWebview } from '../../extension/src/core/protocol';
import type { BreakdownView } from '../../extension/src/core/protocol';
import { buildReport } from '../../extension/src/core/report';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { ClassNames } from '../../extension/src/core/source/classNames';
import { libraryFileHere } from '../../extension/src/core/source/libraryFile';
import { ROOT } from './helpers';

const HF = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');
const DEMO = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');
const CLI = join(ROOT, 'dist', 'cli.js');

interface JsonLine {
  file: string;
  line: number;
  breakdown?: { depth: number; bytes: number; share: number; frames: { name: string; file: string; line: number }[] }[];
}

/** `headroom analyze --json`'s lines: the CLI's breakdown under each. */
function cliLines(path: string): JsonLine[] {
  return (
    JSON.parse(execFileSync(process.execPath, [CLI, 'analyze', path, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 })) as {
      lines: JsonLine[];
    }
  ).lines;
}

async function summaryOf(path: string): Promise<{ s: Snapshot; a: DeviceAnalysis; views: BreakdownView[]; total: number }> {
  const s = await loadSnapshotFile(path);
  const a = analyzeDevice(s, 0);
  const { report } = buildReport(s, a, 'peak', 20);
  const tree = callTree(s, a, report.at.trace_index, new ClassNames());
  return { s, a, views: breakdownViews(tree, report), total: report.at.requested_bytes };
}

/**
 * Bytes live at the peak whose innermost user frame is `file:line` and whose frames beneath it pass
 * through every location in `through` (`file:line`), counted from the raw stacks.
 */
function stackBytes(s: Snapshot, a: DeviceAnalysis, file: string, line: number, through: string[]): number {
  const e = a.replay.elements;
  let sum = 0;
  for (const k of liveAt(e, a.replay.peak.index)) {
    const fr = s.stacks.get(e.stack[k]!);
    const u = fr.findIndex((f) => a.classifier.kind(f) === FrameKind.User);
    if (u < 0 || s.frames.fileOf(fr[u]!) !== file || s.frames.lineOf(fr[u]!) !== line) continue;
    const below = new Set(Array.from(fr.slice(0, u), (f) => `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`));
    if (through.every((t) => below.has(t))) sum += e.size[k]!;
  }
  return sum;
}

/**
 * Each row's bytes against the raw stacks: its first frame and those of the rows it hangs under.
 * Rows through recursive code (`module._apply › module._apply`) and those beneath them are left to
 * callTree.test.ts: there a location is on a stack at several depths, and "passes through" overcounts.
 */
function checkAgainstStacks(s: Snapshot, a: DeviceAnalysis, v: BreakdownView): number {
  const path: string[] = [];
  let recursive = Infinity;
  let checked = 0;
  for (const r of v.rows) {
    path.length = r.depth;
    path.push(`${r.file}:${r.line}`);
    if (r.depth <= recursive) recursive = new Set(r.names).size < r.names.length ? r.depth : Infinity;
    if (r.depth >= recursive) continue;
    assert.equal(r.bytes, stackBytes(s, a, v.file, v.line, path), `${r.names.join(' › ')} ${r.where}`);
    checked++;
  }
  return checked;
}

describe('the breakdown on the summary page and in the hover', () => {
  it('HF Trainer: the summary carries the breakdown of its top line (the Trainer call), the rows of headroom analyze, each row as the stacks say', async () => {
    const { s, a, views } = await summaryOf(HF);
    assert.equal(views.length, 1, JSON.stringify(views.map((v) => `${v.file}:${v.line}`)));
    const v = views[0]!;
    assert.match(v.file, /hf_trainer\.py$/);
    const cli = cliLines(HF).find((l) => l.file === v.file && l.line === v.line);
    assert.ok(cli?.breakdown, 'the CLI breaks the same line down');
    assert.deepEqual(
      v.rows.map((r) => ({ depth: r.depth, bytes: r.bytes, names: r.names, file: r.file, line: r.line })),
      cli.breakdown.map((r) => ({
        depth: r.depth,
        bytes: r.bytes,
        names: r.frames.map((f) => f.name),
        file: r.frames[0]!.file,
        line: r.frames[0]!.line,
      })),
    );
    // GPT-2's modeling file and Adam's state, as the capture's stacks hold them; folded: the Trainer's loop.
    assert.ok(v.rows.some((r) => r.where.startsWith('transformers/models/gpt2/modeling_gpt2.py:')));
    assert.ok(v.rows.some((r) => r.where.startsWith('torch/optim/adam.py:')));
    assert.ok(v.folded.includes('Trainer loop') && v.folded.includes('nn.Module call'), v.folded.join(', '));
    for (const r of v.rows) assert.equal(r.where, `${r.file.replace(/^.*\/site-packages\//, '')}:${r.line}`);
    assert.ok(checkAgainstStacks(s, a, v) >= v.rows.length / 2);
  });

  it('the demo: evaluate’s model call (47.6 % of the peak) is broken down into Sequential and ReLU, nothing else is', async () => {
    const { s, a, views, total } = await summaryOf(DEMO);
    assert.deepEqual(
      views.map((v) => `${v.file.split('/').pop()}:${v.line}`),
      ['train_leaky.py:38'],
    );
    const v = views[0]!;
    assert.ok(Math.abs(stackBytes(s, a, v.file, v.line, []) / total - 0.476) < 0.001);
    assert.deepEqual(
      v.rows.map((r) => [r.depth, r.names.join(' › '), r.where]),
      [
        [0, 'container.forward', 'torch/nn/modules/container.py:253'],
        [1, 'activation.forward › functional.relu', 'torch/nn/modules/activation.py:143'],
      ],
    );
    assert.deepEqual(v.folded, ['nn.Module call']);
    // The whole line is beneath Sequential's forward.
    assert.equal(v.rows[0]!.share, 1);
    assert.equal(checkAgainstStacks(s, a, v), 2);
  });

  it('the hover’s rows: at most 8, the deepest breakdown that fits, each one of the full breakdown’s', async () => {
    const s = await loadSnapshotFile(HF);
    const a = analyzeDevice(s, 0);
    const { report } = buildReport(s, a, 'peak', 20);
    const t = callTree(s, a, report.at.trace_index);
    const top = report.lines[0]!;
    const b = t.beneath.get(lineKey(top.file, top.line))!;
    const all = breakdownRows(b);
    assert.ok(all.length > 8, `${all.length} rows: too few to need shortening`);
    const rows = compactRows(b, 8);
    assert.ok(rows.length <= 8 && rows.length >= 4, `${rows.length} rows`);
    const key = (r: (typeof all)[number]) => `${r.depth} ${r.bytes} ${r.chain.map((n) => `${n.file}:${n.line}`).join(' ')}`;
    const full = new Set(all.map(key));
    for (const r of rows) assert.ok(full.has(key(r)), key(r));
    // Every top-level entry stays; only deeper rows go.
    assert.deepEqual(rows.filter((r) => r.depth === 0).map(key), all.filter((r) => r.depth === 0).map(key));
    const deepest = Math.max(...rows.map((r) => r.depth));
    assert.ok(all.filter((r) => r.depth <= deepest + 1).length > 8, 'one level more would not have fitted');
    // A breakdown that fits is shown whole.
    const demo = await summaryOf(DEMO);
    assert.equal(demo.views[0]!.rows.length, 2);
  });

  it('the page’s messages: a row is asked for by its place, two non-negative integers; the flame graph without arguments', () => {
    assert.ok(isFromWebview({ type: 'openBreakdownRow', breakdown: 0, row: 3 }));
    assert.ok(isFromWebview({ type: 'showFlameGraph' }));
    for (const bad of [
      { breakdown: -1, row: 0 },
      { breakdown: 0, row: 1.5 },
      { breakdown: '0', row: 0 },
      { row: 0 },
      { breakdown: 0, row: Number.NaN },
      { breakdown: 0, row: 2 ** 60 },
    ]) {
      assert.equal(isFromWebview({ type: 'openBreakdownRow', ...bad }), false, JSON.stringify(bad));
    }
  });

  it('a library frame opens here only as an installed package’s regular .py file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-lib-'));
    const site = join(dir, 'venv', 'lib', 'python3.12', 'site-packages', 'torch', 'nn', 'modules');
    mkdirSync(site, { recursive: true });
    const py = join(site, 'container.py');
    writeFileSync(py, 'class Sequential:\n    def forward(self, x):\n        return x\n');
    assert.equal(libraryFileHere(py), py);
    // Not installed code, not Python, missing, a folder, a path with "..", a link out of site-packages, too large.
    const secret = join(dir, 'secret.py');
    writeFileSync(secret, 'TOKEN = 1\n');
    mkdirSync(join(site, 'dir.py'));
    symlinkSync(secret, join(site, 'link.py'));
    writeFileSync(join(site, 'big.py'), Buffer.alloc((4 << 20) + 1, 0x20));
    writeFileSync(join(site, 'notes.txt'), 'x');
    for (const bad of [
      secret,
      join(site, 'notes.txt'),
      join(site, 'missing.py'),
      join(site, 'dir.py'),
      `${site}/../../../../../../secret.py`,
      join(site, 'link.py'),
      join(site, 'big.py'),
      'torch/nn/modules/container.py',
      '',
    ]) {
      assert.equal(libraryFileHere(bad), undefined, bad);
    }
  });
});
