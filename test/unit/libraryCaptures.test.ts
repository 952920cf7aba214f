// The breakdown under the user lines on library-model captures from an H100
// (test/fixtures/library: test/gpu/capture/library/capture.sh, recorded plain with PyTorch's own
// _record_memory_history/_dump_snapshot and by headroom run): the default `headroom analyze`, as a
// real process, judged by libraryChecks.ts. The library sources are not on this machine, so frames
// are named by file and function here; their classes are checked on the GPU host (library.gpu.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { callTree } from '../../extension/src/core/analysis/callTree';
import { creditParams } from '../../extension/src/core/analysis/params';
import { paramsBeside } from '../../extension/src/core/run/paramsFile';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { checkReport } from '../gpu/libraryChecks';
import type { ReportJson } from '../gpu/libraryChecks';
import { ROOT } from './helpers';

const DIR = join(ROOT, 'test', 'fixtures', 'library');
const CLI = join(ROOT, 'dist', 'cli.js');
const EXPECT = JSON.parse(readFileSync(join(ROOT, 'test', 'gpu', 'capture', 'library', 'expect.json'), 'utf8')) as {
  tuned: Record<string, string>;
};

function captures(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) captures(p, out);
    else if (name.endsWith('.pickle.gz')) out.push(p);
  }
  return out;
}

describe('the model code beneath the user lines (library-model captures)', () => {
  for (const snap of captures(DIR)) {
    const name = snap.slice(DIR.length + 1);
    const workload = /^(?:plain\/([^/.]+)\.|run\/([^/]+)\/)/.exec(name)!.slice(1).find(Boolean)!;
    it(`${name}: lines over the share are broken down, ≥ 90 % into model code; the tree adds up; PyTorch's peak`, () => {
      const r = spawnSync(process.execPath, [CLI, 'analyze', snap, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      assert.equal(r.status, 0, r.stderr);
      const report = JSON.parse(r.stdout) as ReportJson & { peak: { requested_bytes: number } };
      const truth = snap.replace(/\.pickle\.gz$/, '.truth.json');
      if (existsSync(truth))
        assert.equal(
          report.peak.requested_bytes,
          (JSON.parse(readFileSync(truth, 'utf8')) as { requested_bytes_peak: number }).requested_bytes_peak,
        );
      const { lines, problems } = checkReport(report);
      assert.deepEqual([...problems, ...lines.flatMap((l) => l.problems.map((p) => `${l.line}: ${p}`))], []);
      const want = EXPECT.tuned[workload];
      if (want)
        assert.ok(
          lines.some((l) => l.files.some((f) => f.includes(want))),
          `${want} under no line: ${JSON.stringify(lines.map((l) => l.files))}`,
        );
      else assert.ok(lines.length > 0, 'some line is broken down');
    });
  }
});

describe('named parameters on the headroom run captures (params.jsonl)', () => {
  interface Node {
    kind: string;
    bytes: number;
    children?: readonly Node[];
  }
  const tensorBytes = (n: Node): number => (n.kind === 'tensor' ? n.bytes : (n.children ?? []).reduce((x, c) => x + tensorBytes(c), 0));
  const analyze = (snap: string) => {
    const r = spawnSync(process.execPath, [CLI, 'analyze', snap, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { tree: Node; params?: { credited_bytes: number; by_kind: Record<string, { bytes: number }> } };
  };

  for (const snap of captures(join(DIR, 'run'))) {
    it(`${snap.slice(DIR.length + 1)}: the tree's named tensors are what the run's optimizer steps credited`, async () => {
      const s = await loadSnapshotFile(snap);
      const a = analyzeDevice(s, 0);
      const credit = creditParams(a, a.replay.peak.index, paramsBeside(snap)!);
      assert.ok(credit.byKind.parameter.bytes > 0, 'parameters named');
      const t = callTree(s, a, a.replay.peak.index, undefined, credit);
      assert.equal(tensorBytes(t.root), credit.creditedBytes);
      assert.equal(t.root.bytes, credit.liveBytes);
    });
  }

  it('HF Trainer on GPT-2: the parameters credited are the model’s, byte for byte, and AdamW’s state twice them', () => {
    // GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=4) as hf_decoder.py builds it, fp32, lm_head tied.
    const d = 512;
    const layer = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * 4 * d + 4 * d) + (4 * d * d + d);
    const params = 8192 * d + 256 * d + 4 * layer + 2 * d;
    const r = analyze(join(DIR, 'run', 'hf_decoder', 'snapshot-exit-1.pickle.gz'));
    assert.equal(r.params!.by_kind.parameter!.bytes, 4 * params);
    // exp_avg and exp_avg_sq per parameter, plus a 4-byte step counter for each of the 52 tensors.
    assert.equal(r.params!.by_kind.optimizer_state!.bytes, 2 * 4 * params + 52 * 4);
  });
});
