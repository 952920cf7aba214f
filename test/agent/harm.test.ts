// The agent never harms a workload: signals, forks and spawned workers (issue 15). Each case runs
// test/agent/workloads/harm.py with and without the agent, on fakecuda.py's device, under a Python
// without torch (the stand-in in fake_torch/) and under Debian's CPU torch.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DEBIAN_PY, ensureDebianTorch, runAsync } from './pythons';
import type { Ended } from './pythons';
import { processLabel } from '../../extension/src/core/run/processes';
import { readRun } from '../../extension/src/core/run/runFolder';

const AGENT = join(__dirname, '..', '..', 'extension', 'agent');
const FAKE_TORCH = join(__dirname, 'fake_torch');
const HARM = join(__dirname, 'workloads', 'harm.py');
const FORKS = Number(process.env.HEADROOM_TEST_FORKS ?? 3000);

const outcome = (r: Ended) => ({ code: r.code, signal: r.signal, out: r.out, err: r.err });

async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) out[i] = await task(i);
    }),
  );
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const [label, python, extraPath] of [
  ['a Python without torch (stand-in torch)', 'python3', FAKE_TORCH],
  ["Debian's CPU torch", DEBIAN_PY, ''],
] as const) {
  describe(`the agent never harms a workload: ${label}`, () => {
    before(() => {
      if (python === DEBIAN_PY) ensureDebianTorch();
    });
    const path = (withAgent: boolean) => [withAgent ? AGENT : '', extraPath].filter(Boolean).join(':');
    const plainEnv = (): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: path(false) };
      for (const k of Object.keys(env)) if (k.startsWith('HEADROOM_')) delete env[k];
      return env;
    };
    const agentEnv = (runs: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
      ...plainEnv(),
      PYTHONPATH: path(true),
      HEADROOM_AGENT: '1',
      HEADROOM_RUNS_DIR: runs,
      HEADROOM_RUN_ID: 'r',
      ...extra,
    });
    const fresh = () => mkdtempSync(join(tmpdir(), 'headroom-harm-'));
    const harm = (args: string[], env: NodeJS.ProcessEnv, opts: { killAfterLine?: string; killDelayMs?: number } = {}) =>
      runAsync(python, [HARM, ...args], env, { hangGuardMs: 120_000, ...opts });

    it('SIGTERM during a dump made slow on purpose: 100 of 100 tries end as without Headroom', async () => {
      const plain = outcome(await harm(['sigterm-dump', '300'], plainEnv()));
      assert.equal(plain.signal, 'SIGTERM');
      const marks = fresh();
      const tries = await pool(100, 4, async (i) => {
        const delay = 150 + ((i * 37) % 450);
        // Full mode: its sampler asks for a peak dump at each rise, so signals land mid-dump.
        const env = agentEnv(fresh(), {
          HEADROOM_RECORD: 'full',
          HEADROOM_SAMPLE_MS: '10',
          HEADROOM_PEAK_MARGIN: '0',
          HEADROOM_PEAK_INTERVAL_S: '0',
          HEADROOM_TEST_DUMP_S: '0.5',
          HEADROOM_TEST_MARKS: marks,
        });
        return outcome(await harm(['sigterm-dump', String(delay)], env));
      });
      const same = tries.filter((t) => JSON.stringify(t) === JSON.stringify(plain)).length;
      assert.equal(
        same,
        100,
        `tries unlike the plain run: ${JSON.stringify(tries.find((t) => JSON.stringify(t) !== JSON.stringify(plain)))}`,
      );
      // The case is only meaningful if dumps were under way when the signal came.
      const midDump = readdirSync(marks).length;
      assert.ok(midDump >= 50, `only ${midDump} of 100 tries had begun a dump`);
    });

    it('a Lightning-style handler that chains the one it finds: same exit code and output; getsignal sees no agent handler', async () => {
      const plain = outcome(await harm(['chained'], plainEnv()));
      assert.equal(plain.code, 0);
      assert.match(plain.out, /^graceful stop after signal 15$/m);
      const runs = fresh();
      const agent = outcome(await harm(['chained'], agentEnv(runs)));
      assert.deepEqual(agent, plain);
      assert.ok(existsSync(join(runs, 'r', 'meta.json')), 'the agent did record this run');
    });

    it('SIGTERM while the main thread sits in C code: it dies as soon as without Headroom', async (t) => {
      const deaths = { plain: [] as number[], agent: [] as number[] };
      for (let i = 0; i < 5; i++) {
        for (const who of ['plain', 'agent'] as const) {
          const r = await harm(['blocked'], who === 'plain' ? plainEnv() : agentEnv(fresh()), {
            killAfterLine: 'blocking',
            killDelayMs: 300,
          });
          assert.equal(r.signal, 'SIGTERM');
          assert.doesNotMatch(r.out, /returned/);
          deaths[who].push(r.diedAfterKillMs!);
        }
      }
      t.diagnostic(
        `death after SIGTERM, median of 5: plain ${median(deaths.plain).toFixed(1)} ms, agent ${median(deaths.agent).toFixed(1)} ms`,
      );
      // A hang guard, not a timing test: the C call runs for many seconds, so a handler that waited
      // for it would take seconds, where the default action takes milliseconds.
      assert.ok(median(deaths.agent) < median(deaths.plain) + 1500, JSON.stringify(deaths));
    });

    it(`${FORKS} forks while the sampler runs every 10 ms: no hang, no child event in the parent's files`, async () => {
      const runs = fresh();
      const r = await harm(['forks', String(FORKS)], agentEnv(runs, { HEADROOM_SAMPLE_MS: '10' }));
      assert.equal(r.code, 0, r.err);
      const m = /^forks (\d+) hangs (\d+) parent backward (\d+)$/m.exec(r.out);
      assert.ok(m, r.out);
      assert.equal(Number(m[2]), 0, 'children that hung');
      const events = readFileSync(join(runs, 'r', 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; pid?: number });
      const backward = events.filter((e) => e.event === 'backward');
      assert.equal(backward.length, Number(m[3]), "the parent's own backward calls, and no child's");
      assert.deepEqual(readdirSync(runs), ['r'], 'the children never held CUDA memory: no folder of theirs');
      assert.equal(r.err, '');
    });

    const spawnCase = python === DEBIAN_PY ? 'spawn-dist' : 'spawn';
    it(`${spawnCase === 'spawn' ? 'multiprocessing spawn' : 'torch.multiprocessing.spawn'} of 4 workers: 4 folders with an exit snapshot each, nothing on stderr`, async () => {
      const plain = outcome(await harm([spawnCase, '4'], plainEnv()));
      const runs = fresh();
      const agent = outcome(await harm([spawnCase, '4'], agentEnv(runs)));
      assert.deepEqual(agent, plain);
      assert.equal(agent.err, '');
      const folders = readdirSync(runs).sort();
      assert.equal(folders.length, 4, folders.join(' '));
      const named = spawnCase === 'spawn-dist' ? /^r-rank[0-3]$/ : /^r-pid\d+$/;
      for (const f of folders) {
        assert.match(f, named);
        assert.ok(
          readdirSync(join(runs, f)).some((n) => /^snapshot-exit-\d+\.pickle$/.test(n)),
          `${f} has its exit snapshot`,
        );
        const meta = JSON.parse(readFileSync(join(runs, f, 'meta.json'), 'utf8')) as { pid: number; status: string; role: string };
        assert.equal(meta.status, 'ended');
        assert.equal(meta.role, 'child');
      }
      if (spawnCase === 'spawn-dist') assert.deepEqual(folders, ['r-rank0', 'r-rank1', 'r-rank2', 'r-rank3']);
      // The readers list them as one run's processes, as they list torchrun's ranks.
      const run = readRun(join(runs, folders[0]!));
      const pids = folders.map((f) => (JSON.parse(readFileSync(join(runs, f, 'meta.json'), 'utf8')) as { pid: number }).pid);
      const expected =
        spawnCase === 'spawn-dist' ? ['rank 0', 'rank 1', 'rank 2', 'rank 3'] : [...pids].sort((a, b) => a - b).map((p) => `pid ${p}`);
      assert.deepEqual(
        run.processes.map((p) => processLabel(p)),
        expected,
      );
    });

    if (python !== DEBIAN_PY)
      it('headroom run of spawned workers: one folder each beside the run, each reported under its label', async () => {
        const out = fresh();
        const r = await runAsync(
          process.execPath,
          [join(__dirname, '..', '..', 'dist', 'cli.js'), 'run', '--out', out, '--', python, HARM, 'spawn', '2'],
          { ...plainEnv(), PYTHONPATH: FAKE_TORCH },
          { hangGuardMs: 120_000 },
        );
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /^exit codes \[0, 0\]$/m);
        const folders = readdirSync(out).sort();
        assert.equal(folders.length, 3, folders.join(' '));
        const pids = folders.slice(1).map((f) => Number(/-pid(\d+)$/.exec(f)![1]));
        for (const pid of pids) assert.match(r.err, new RegExp(`^pid ${pid}: exit snapshot$`, 'm'));
        assert.doesNotMatch(r.err, /could not|Traceback/);
      });

    it('a process that initializes CUDA and allocates nothing leaves nothing in the run folder', async () => {
      const runs = fresh();
      const r = await harm(['cuda-no-alloc'], agentEnv(runs));
      assert.equal(r.code, 0);
      assert.deepEqual(readdirSync(runs), []);
    });

    it("when nothing was recorded, the launched process says why in the launcher's folder, and writes nothing else", async () => {
      for (const [args, why] of [
        [['cuda-no-alloc'], 'no-memory'],
        [['-c', 'print(1)'], 'no-torch'],
        [['-c', 'import torch'], 'no-cuda'],
      ] as const) {
        const runs = fresh();
        mkdirSync(join(runs, 'r')); // made by the launcher, with its launch.json
        const r = await runAsync(python, args[0] === '-c' ? [...args] : [HARM, ...args], agentEnv(runs), { hangGuardMs: 120_000 });
        assert.equal(r.code, 0, r.err);
        assert.equal(r.err, '');
        assert.deepEqual(readdirSync(runs), ['r']);
        assert.deepEqual(readdirSync(join(runs, 'r')), ['agent.log.jsonl']);
        const last = readFileSync(join(runs, 'r', 'agent.log.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { nothing_recorded?: string })
          .at(-1);
        assert.equal(last?.nothing_recorded, why, args.join(' '));
      }
    });
  });
}
