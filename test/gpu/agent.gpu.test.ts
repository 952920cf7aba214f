// The agent never harms a workload, on a real GPU (issue 15): SIGTERM during a real dump, a
// torch.compile run, torch.multiprocessing.spawn ranks, DataLoader workers. CI has no GPU and
// skips them; on the GPU host: node scripts/gpu-carry.mjs here, then
//   HEADROOM_CLI=.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/agent.gpu.test.js
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { cudaAvailable, NO_GPU } from './cuda';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const AGENT = process.env.HEADROOM_AGENT_DIR ?? join(ROOT, 'extension', 'agent');
const WORK = join(ROOT, 'test', 'gpu', 'workloads');
const HARM = join(WORK, 'harm_gpu.py');

const SKIP = cudaAvailable() ? false : NO_GPU;

const fresh = () => mkdtempSync(join(tmpdir(), 'headroom-gpu-harm-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the dumps workload; SIGTERM once `ready()` says so; resolves with how it ended. */
function killWhen(
  env: NodeJS.ProcessEnv,
  ready: (out: string) => boolean,
): Promise<{ signal: string | null; code: number | null; ms: number }> {
  return new Promise((res) => {
    const child = spawn('python3', [HARM, 'dumps'], { env, cwd: WORK, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let killed = 0n;
    const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const poll = setInterval(() => {
      if (!killed && ready(out)) {
        killed = process.hrtime.bigint();
        child.kill('SIGTERM');
      }
    }, 2);
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.resume();
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      clearInterval(poll);
      res({ code, signal, ms: killed ? Number(process.hrtime.bigint() - killed) / 1e6 : -1 });
    });
  });
}

describe('the agent never harms a GPU workload', { skip: SKIP }, () => {
  it('SIGTERM during a real snapshot dump: 10 of 10 tries die as without Headroom, none hangs', async (t) => {
    const base = { ...process.env };
    const plain: number[] = [];
    const agent: number[] = [];
    for (let i = 0; i < 10; i++) {
      const runs = fresh();
      // Full recording: in the default (windows) mode no peak snapshot is written past the first steps.
      const env = {
        ...base,
        PYTHONPATH: AGENT,
        HEADROOM_AGENT: '1',
        HEADROOM_RECORD: 'full',
        HEADROOM_RUNS_DIR: runs,
        HEADROOM_RUN_ID: 'r',
        HEADROOM_PEAK_MARGIN: '0',
        HEADROOM_PEAK_INTERVAL_S: '0',
        HEADROOM_SAMPLE_MS: '10',
      };
      // Past step 20 the trace is long; the kill lands while a peak snapshot is being written.
      const dumping = () =>
        existsSync(join(runs, 'r')) && readdirSync(join(runs, 'r')).some((f) => /^\.snapshot-peak\.pickle\.\d+\.tmp$/.test(f));
      const a = await killWhen(env, (out) => /^step 2\d$/m.test(out) && dumping());
      assert.equal(a.signal, 'SIGTERM', JSON.stringify(a));
      agent.push(a.ms);
      const p = await killWhen(base, (out) => /^step 2\d$/m.test(out));
      assert.equal(p.signal, 'SIGTERM');
      plain.push(p.ms);
    }
    t.diagnostic(
      `death after SIGTERM, median of 10: plain ${median(plain).toFixed(1)} ms, agent mid-dump ${median(agent).toFixed(1)} ms (max ${Math.max(...agent).toFixed(1)})`,
    );
  });

  it('a torch.compile run leaves exactly one process folder with snapshots', () => {
    const out = fresh();
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, '--', 'python3', HARM, 'compile'], { encoding: 'utf8', cwd: WORK });
    assert.equal(r.status, 0, r.stderr);
    const withSnapshots = readdirSync(out).filter((d) => readdirSync(join(out, d)).some((f) => /^snapshot-.*\.pickle$/.test(f)));
    assert.deepEqual(withSnapshots.length, 1, readdirSync(out).join(' '));
    assert.equal(readRun(join(out, withSnapshots[0]!)).processes.length, 1);
  });

  it('torch.multiprocessing.spawn(nprocs=2) on one GPU: two rank folders, each peak equal to its rank’s PyTorch figure', async () => {
    const out = fresh();
    const log = join(out, 'truth');
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, '--', 'python3', HARM, 'spawn', '2', log], {
      encoding: 'utf8',
      cwd: WORK,
    });
    assert.equal(r.status, 0, r.stderr);
    const folders = readdirSync(out)
      .filter((d) => !d.startsWith('truth'))
      .sort();
    const ranks = folders.filter((d) => /-rank[01]$/.test(d));
    assert.equal(ranks.length, 2, folders.join(' '));
    const run = readRun(join(out, ranks[0]!));
    assert.deepEqual(
      run.processes.map((p) => p.rank),
      [0, 1],
    );
    for (const p of run.processes) {
      const truth = JSON.parse(readFileSync(`${log}.rank${p.rank}.json`, 'utf8')) as { requested_bytes_peak: number };
      const s = await loadSnapshotFile(bestSnapshot(p)!.path);
      assert.equal(analyzeDevice(s, 0).replay.peak.requestedBytes, truth.requested_bytes_peak, `rank ${p.rank}`);
    }
  });

  for (const method of ['fork', 'spawn'])
    it(`DataLoader(num_workers=4) with ${method}: the same output as without Headroom`, () => {
      const plain = spawnSync('python3', ['-W', 'always::DeprecationWarning', HARM, 'loader', method], { encoding: 'utf8', cwd: WORK });
      const out = fresh();
      const env = { ...process.env, PYTHONPATH: AGENT, HEADROOM_AGENT: '1', HEADROOM_RUNS_DIR: out, HEADROOM_RUN_ID: 'r' };
      const agent = spawnSync('python3', ['-W', 'always::DeprecationWarning', HARM, 'loader', method], {
        encoding: 'utf8',
        cwd: WORK,
        env,
      });
      assert.equal(plain.status, 0, plain.stderr);
      const same = (e: string) => e.replace(/pid=\d+/g, 'pid=N'); // Python 3.12's fork warning names the pid
      assert.deepEqual([agent.status, agent.stdout, same(agent.stderr)], [plain.status, plain.stdout, same(plain.stderr)]);
      assert.deepEqual(readdirSync(out), ['r'], 'the workers held no CUDA memory: no folder of theirs');
    });
});
