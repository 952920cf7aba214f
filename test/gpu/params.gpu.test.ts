// Parameters, gradients and optimizer state credited to named parameters (agent: params.py,
// engine: analysis/params.ts) on a real `headroom run`: an HF GPT-2 (loaded with from_pretrained,
// which swaps in new Parameter objects after the modules registered theirs) with AdamW, then a ResNet with
// SGD (test/gpu/capture/params_train.py). What each live block is comes from the script's own
// record of every tensor's storage right after each step, matched to the blocks here. CI has no
// GPU and skips it; on the GPU host: node scripts/gpu-carry.mjs here, then
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/params.gpu.test.js
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { creditParams } from '../../extension/src/core/analysis/params';
import { renderParamsCredit } from '../../extension/src/core/analysis/paramsText';
import { readParamsFile } from '../../extension/src/core/run/paramsFile';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { cudaAvailable, NO_GPU } from './cuda';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const CAPTURE = join(ROOT, 'test', 'gpu', 'capture');
const SKIP = cudaAvailable() ? false : NO_GPU;
const KINDS = ['parameter', 'gradient', 'optimizer_state'] as const;

interface Seen {
  name: string;
  kind: (typeof KINDS)[number];
  key: string | null;
  at: [number, number];
}
interface TruthRun {
  model: string;
  names: string[];
  start: number;
  end: number;
  steps: { t: number; tensors: Seen[] }[];
}

/** The script's own tensors behind each block live after trace event `index`: one seen at the block's address, with its size, while it was alive. */
function truthAt(a: DeviceAnalysis, index: number, runs: TruthRun[]): Map<number, Seen> {
  const e = a.replay.elements;
  const time = (i: number, none: number) => (i >= 0 && i < a.replay.n ? a.replay.timeUs[i]! : none);
  const out = new Map<number, Seen>();
  for (let k = 0; k < e.count; k++) {
    if (!(e.alloc[k]! <= index && e.free[k]! > index)) continue;
    const from = time(e.alloc[k]!, -Infinity);
    const to = time(e.freeRequested[k]!, Infinity);
    for (const step of runs.flatMap((r) => r.steps)) {
      if (step.t < from || step.t >= to) continue;
      const hit = step.tensors.find((t) => t.at[0] === e.addr[k] && t.at[1] === e.size[k]);
      if (hit) {
        out.set(k, hit);
        break;
      }
    }
  }
  return out;
}

describe('parameter names on a GPU (headroom run)', { skip: SKIP }, () => {
  it('GPT-2 with AdamW and a ResNet with SGD: at least 95 % of each kind live at each peak is credited to its named parameter', async () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-params-'));
    const truthPath = join(out, 'truth.json');
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, '--', 'python3', 'params_train.py', truthPath], {
      encoding: 'utf8',
      cwd: CAPTURE,
      maxBuffer: 1 << 28,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^trained gpt2, (timm|torchvision) resnet18$/m);
    const truth = (JSON.parse(readFileSync(truthPath, 'utf8')) as { runs: TruthRun[] }).runs;
    const dir = join(out, readdirSync(out).find((d) => d.includes('params_train'))!);
    const p = readRun(dir).processes[0]!;
    if (process.env.HEADROOM_KEEP) {
      mkdirSync(process.env.HEADROOM_KEEP, { recursive: true });
      for (const f of readdirSync(p.dir).filter((x) => !x.startsWith('.')))
        copyFileSync(join(p.dir, f), join(process.env.HEADROOM_KEEP, f));
      copyFileSync(truthPath, join(process.env.HEADROOM_KEEP, 'truth.json'));
    }
    const rec = readParamsFile(join(p.dir, 'params.jsonl'));
    // Each optimizer's parameters, named as the model names them (GPT-2's lm_head is tied: named once).
    assert.equal(rec.optimizers.length, 2, rec.optimizers.join(','));
    truth.forEach((run, opt) => {
      const names = new Set(rec.tensors.filter((t) => t.opt === opt && t.kind === 'parameter').map((t) => t.name));
      assert.deepEqual([...names].sort(), [...run.names].sort(), run.model);
      assert.ok(
        rec.tensors.filter((t) => t.opt === opt).every((t) => t.named),
        run.model,
      );
    });
    assert.ok(truth[0]!.names.includes('transformer.h.3.attn.c_attn.weight') && !truth[0]!.names.includes('lm_head.weight'));
    const snap = bestSnapshot(p)!;
    const a = analyzeDevice(await loadSnapshotFile(snap.path), 0);
    // The run's peak, each model's own peak (in a forward: no gradients then, set_to_none), and the
    // last event before each step's end (gradients live; the last step's comes after the window
    // closed and wrote the peak snapshot).
    const instants = new Set([a.replay.peak.index]);
    const time = a.replay.timeUs;
    for (const run of truth) {
      let best = -1;
      for (let i = 0; i < a.replay.n; i++) {
        if (time[i]! >= run.start && time[i]! <= run.end && (best < 0 || a.replay.requested[i]! > a.replay.requested[best]!)) best = i;
      }
      if (best >= 0) instants.add(best);
      for (const step of run.steps) {
        let i = a.replay.n - 1;
        while (i >= 0 && time[i]! > step.t) i--;
        if (i >= 0 && time[i]! >= run.start) instants.add(i);
      }
    }
    assert.ok(instants.size >= 4, `both models in ${snap.kind}'s trace`);
    const seen = new Set<string>();
    for (const index of [...instants].sort((x, y) => x - y)) {
      const want = truthAt(a, index, truth);
      const c = creditParams(a, index, rec);
      const got = new Map<number, number>();
      c.live.forEach((k, j) => got.set(k, c.credit[j]!));
      const report = renderParamsCredit(c, 8).join('\n');
      let wrong = 0;
      for (const kind of KINDS) {
        let total = 0;
        let right = 0;
        for (const [k, t] of want) {
          if (t.kind !== kind) continue;
          total += a.replay.elements.size[k]!;
          const cr = c.tensors[got.get(k) ?? -1];
          if (cr && cr.name === t.name && cr.kind === t.kind && (cr.key ?? null) === (t.key ?? null)) right += a.replay.elements.size[k]!;
        }
        if (total > 0) seen.add(kind);
        assert.ok(right >= 0.95 * total, `${kind} at event ${index}: ${right} of ${total} bytes credited\n${report}`);
      }
      // Credited where the truth says otherwise (or nothing): at most 1 % of the credited bytes.
      c.live.forEach((k, j) => {
        const cr = c.tensors[c.credit[j]!];
        const t = want.get(k);
        if (cr && !(t && t.name === cr.name && t.kind === cr.kind)) wrong += a.replay.elements.size[k]!;
      });
      assert.ok(wrong <= 0.01 * c.creditedBytes, `${wrong} bytes credited against the truth at event ${index}\n${report}`);
      console.log(`event ${index} (${snap.kind} snapshot):\n${report}`);
    }
    assert.deepEqual([...seen].sort(), [...KINDS].sort(), 'each kind live at some instant');
  });
});
