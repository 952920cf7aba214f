// Two ranks as torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK), real Python processes with the
// agent on fakecuda's device: each writes its own <run>-rank<r> folder, and `headroom ranks` reads
// them back with each rank's own peak and the imbalance.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DEBIAN_PY, ensureDebianTorch, runAsync } from './pythons';

const ROOT = join(__dirname, '..', '..');
const AGENT = join(ROOT, 'extension', 'agent');
const WORKLOADS = join(__dirname, 'workloads');
const MiB = 2 ** 20;

describe('a distributed run’s ranks, recorded by the agent', () => {
  before(() => {
    ensureDebianTorch();
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  });

  it('one folder per rank, each rank’s peak as its allocator counted it, and the imbalance', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'headroom-ranks-'));
    const env = (rank: number): NodeJS.ProcessEnv => ({
      ...process.env,
      PYTHONPATH: [AGENT, WORKLOADS].join(':'),
      HEADROOM_AGENT: '1',
      HEADROOM_RUNS_DIR: runs,
      HEADROOM_RUN_ID: 'r',
      HEADROOM_SAMPLE_MS: '10',
      RANK: String(rank),
      LOCAL_RANK: String(rank),
      WORLD_SIZE: '2',
    });
    const ended = await Promise.all(
      [0, 1].map((r) => runAsync(DEBIAN_PY, [join(WORKLOADS, 'rank.py'), '0.3'], env(r), { hangGuardMs: 120_000 })),
    );
    ended.forEach((e, r) => {
      assert.equal(e.code, 0, e.err);
      assert.equal(e.out, `rank ${r} done\n`, 'the workload’s output is its own');
    });
    for (const r of [0, 1]) assert.ok(existsSync(join(runs, `r-rank${r}`, 'samples.jsonl')), `r-rank${r}`);
    const cli = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'ranks', join(runs, 'r-rank0'), '--json'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const j = JSON.parse(cli.stdout) as { ranks: { rank: number; peak: number }[]; imbalance: number };
    assert.deepEqual(
      j.ranks.map((x) => [x.rank, x.peak]),
      [
        [0, 64 * MiB],
        [1, 96 * MiB],
      ],
    );
    assert.equal(j.imbalance, 32 * MiB);
  });
});
