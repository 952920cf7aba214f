// torchrun on real GPUs (issue 23): a DDP loop whose ranks train on different batch sizes, recorded
// by `headroom run`, then read back by `headroom ranks`. NCCL with one GPU per rank where the
// machine has two (nvidia-h200-x2); gloo with both ranks on one GPU otherwise. CI has no GPU and skips
// them; on the GPU host: node scripts/gpu-carry.mjs here, then
//   HEADROOM_CLI=.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/ranks.gpu.test.js
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { cudaAvailable, NO_GPU } from './cuda';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const WORK = join(ROOT, 'test', 'gpu', 'workloads');
const SKIP = cudaAvailable() ? false : NO_GPU;

interface Figures {
  rank: number;
  requested_peak: number;
  reserved_peak: number;
}

/** `headroom run -- torchrun … SCRIPT ARGS`: the workload's own figures per rank, and the run's folder. */
function ddp(args: string[], script = 'ddp.py'): { code: number | null; figs: Figures[]; run: string; err: string } {
  const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-ranks-'));
  const r = spawnSync(
    process.execPath,
    [CLI, 'run', '--out', out, '--', 'torchrun', '--standalone', '--nproc-per-node', '2', script, ...args],
    { encoding: 'utf8', cwd: WORK, maxBuffer: 1 << 28, timeout: 540_000 },
  );
  const figs = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('RANKFIGS '))
    .map((l) => JSON.parse(l.slice(9)) as Figures);
  const dirs = readdirSync(out).sort();
  return { code: r.status, figs, run: join(out, dirs[0]!), err: r.stderr };
}

function ranks(dir: string): {
  ranks: { rank: number; peak: number; reservedPeak: number; outsidePytorch: number | null; ooms: number }[];
  imbalance: number;
  lines: { bytes: number[]; spread: number }[];
  oom: { rank: number; others: { rank: number }[] } | null;
} {
  return JSON.parse(execFileSync(process.execPath, [CLI, 'ranks', dir, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

describe('torchrun: ranks side by side', { skip: SKIP }, () => {
  const gpus = SKIP
    ? 0
    : Number(execFileSync('python3', ['-c', 'import torch; print(torch.cuda.device_count())'], { encoding: 'utf8' }).trim());

  it('each rank’s peak is its own requested_bytes.all.peak; the imbalance and the lines that differ follow the batch sizes', () => {
    const t0 = Date.now();
    const r = ddp([]);
    assert.equal(r.code, 0, r.err);
    const j = ranks(r.run);
    console.log(
      `ddp on ${gpus} GPU(s): ${((Date.now() - t0) / 1000).toFixed(1)} s; ranks ${JSON.stringify(j.ranks)}; imbalance ${j.imbalance}`,
    );
    assert.deepEqual(
      j.ranks.map((x) => x.rank),
      [0, 1],
    );
    for (const f of r.figs) {
      const got = j.ranks.find((x) => x.rank === f.rank)!;
      assert.equal(got.peak, f.requested_peak, `rank ${f.rank}: PyTorch's own requested_bytes.all.peak`);
      assert.equal(got.reservedPeak, f.reserved_peak, `rank ${f.rank}: reserved_bytes.all.peak`);
    }
    assert.equal(j.imbalance, Math.abs(r.figs[1]!.requested_peak - r.figs[0]!.requested_peak));
    assert.ok(j.lines.length > 0 && j.lines[0]!.spread > 0, 'the batch-sized activations differ between ranks');
    // NCCL's buffers and the CUDA context: device memory the driver counts beyond PyTorch's reserved.
    if (gpus >= 2) for (const x of j.ranks) assert.ok((x.outsidePytorch ?? 0) > 0, `rank ${x.rank}: ${x.outsidePytorch}`);
  });

  // FSDP2 shards parameters, gradients and optimizer state across ranks: each rank's peak is still
  // its own process's, read from its own folder. NCCL needs a GPU per rank.
  it('FSDP2 (fully_shard): each rank’s peak is its own requested_bytes.all.peak', {
    skip: gpus < 2 ? 'FSDP2 needs two GPUs (NCCL)' : false,
  }, () => {
    const t0 = Date.now();
    const r = ddp([], 'fsdp2.py');
    assert.equal(r.code, 0, r.err);
    const j = ranks(r.run);
    console.log(
      `fsdp2 on ${gpus} GPUs: ${((Date.now() - t0) / 1000).toFixed(1)} s; ranks ${JSON.stringify(j.ranks)}; imbalance ${j.imbalance}`,
    );
    assert.deepEqual(
      j.ranks.map((x) => x.rank),
      [0, 1],
    );
    assert.equal(r.figs.length, 2, r.err);
    for (const f of r.figs) {
      const got = j.ranks.find((x) => x.rank === f.rank)!;
      assert.equal(got.peak, f.requested_peak, `rank ${f.rank}: PyTorch's own requested_bytes.all.peak`);
      assert.equal(got.reservedPeak, f.reserved_peak, `rank ${f.rank}: reserved_bytes.all.peak`);
    }
    assert.equal(j.imbalance, Math.abs(r.figs[1]!.requested_peak - r.figs[0]!.requested_peak));
  });

  it('an OOM on rank 1 is explained on rank 1, with rank 0’s state at that moment', () => {
    const r = ddp(['oom']);
    assert.notEqual(r.code, 0, 'the OOM fails the job, as without Headroom');
    assert.match(r.err, /OutOfMemoryError/);
    const j = ranks(r.run);
    assert.equal(j.oom?.rank, 1);
    assert.deepEqual(
      j.oom?.others.map((o) => o.rank),
      [0],
    );
    assert.equal(j.ranks.find((x) => x.rank === 1)?.ooms, 1);
    const explain = spawnSync(
      process.execPath,
      [CLI, 'analyze', join(`${r.run}-rank1`, readdirSync(`${r.run}-rank1`).find((f) => f.startsWith('snapshot-oom'))!)],
      { encoding: 'utf8' },
    );
    assert.equal(explain.status, 0, explain.stderr);
  });
});
