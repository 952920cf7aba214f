import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { othersAtOom } from '../../extension/src/core/gpu/atOom';
import type { GpuProbe } from '../../extension/src/core/gpu/types';
import { coalesced } from '../../extension/src/core/gpu/probe';
import { LiveRun } from '../../extension/src/core/run/liveRun';
import type { LiveRunOptions } from '../../extension/src/core/run/liveRun';
import { statusText } from '../../extension/src/core/run/status';

// The engine's LiveRun as both front ends drive it: a real RunServer on a real socket, agents as
// the Python agent speaks (JSON lines after a hello with the token from plan.env).

const GiB = 2 ** 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  for (const t0 = Date.now(); !ok(); await sleep(10)) if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
}

interface Agent {
  send(m: Record<string, unknown>): void;
  socket: Socket;
}

const sockets: Socket[] = [];
const runs: LiveRun[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const r of runs.splice(0)) await r.close();
});

async function agent(run: LiveRun, pid: number, rank: number | null, token = run.plan.env.HEADROOM_TOKEN): Promise<Agent> {
  const socket = connect(run.plan.env.HEADROOM_SOCKET!);
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise<void>((res, rej) => socket.once('connect', res).once('error', rej));
  const send = (m: Record<string, unknown>) => void socket.write(`${JSON.stringify(m)}\n`);
  send({ type: 'hello', token, pid, rank, local_rank: rank, world_size: null, run_dir: run.dir });
  return { send, socket };
}

const sample = (t: number, device: number, allocated: number, reserved: number, maxAllocated = allocated) => ({
  type: 'sample',
  t,
  device,
  allocated,
  reserved,
  active: allocated,
  inactive_split: 0,
  requested: allocated,
  max_allocated: maxAllocated,
  max_reserved: reserved,
  max_requested: maxAllocated,
  retries: 0,
  ooms: 0,
});

async function start(extra: Partial<LiveRunOptions> = {}): Promise<LiveRun> {
  const runsDir = join(mkdtempSync(join(tmpdir(), 'headroom-liverun-')), 'runs');
  const run = await LiveRun.start({
    script: '/work/proj/train.py',
    runsDir,
    agentDir: '/opt/agent',
    settings: { sampleMs: 50 },
    launch: { command: ['python', 'train.py', '--epochs', '1'], cwd: '/work/proj', launcher: 'cli' },
    ...extra,
  });
  runs.push(run);
  return run;
}

const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;

describe('LiveRun: the run channel every front end uses', () => {
  it('writes the run folder and launch.json before the command starts, the channel in plan.env', async () => {
    const run = await start();
    assert.equal(run.name, 'train.py');
    assert.equal(run.record, 'window', 'window recording unless the settings say full');
    assert.match(basename(run.dir), /^\d{8}-\d{6}-train-[0-9a-f]{4}$/);
    assert.equal(run.plan.env.HEADROOM_SOCKET, run.server.address);
    assert.equal(run.plan.env.HEADROOM_TOKEN, run.server.token);
    assert.equal(run.plan.env.HEADROOM_SAMPLE_MS, '50');
    const launch = readJson(join(run.dir, 'launch.json'));
    assert.deepEqual(Object.keys(launch), ['command', 'cwd', 'started', 'launcher', 'settings', 'status']);
    assert.deepEqual(launch.command, ['python', 'train.py', '--epochs', '1']);
    assert.equal(launch.launcher, 'cli');
    assert.equal(launch.status, 'running');
    assert.deepEqual(launch.settings, { sampleMs: 50 });
    assert.ok(Math.abs(Date.parse(String(launch.started)) - Date.now()) < 60_000);

    const editor = await start({
      settings: { record: 'full' },
      launch: {
        command: ['/usr/bin/python3', 'train.py'],
        interpreter: { path: '/usr/bin/python3', source: 'setting' },
        cwd: '/w',
        launcher: 'vscode',
      },
    });
    assert.equal(editor.record, 'full');
    const l2 = readJson(join(editor.dir, 'launch.json'));
    assert.deepEqual(l2.interpreter, { path: '/usr/bin/python3', source: 'setting' });
    assert.equal(l2.launcher, 'vscode');
  });

  it('keeps the pids, the latest sample per stream and device and the status; a stream that leaves takes its samples', async () => {
    let changed = 0;
    const connected: number[] = [];
    const run = await start({ on: { changed: () => changed++, connect: (s) => connected.push(s.hello.pid) } });
    assert.equal(run.status(), undefined, 'no figures before the first sample');
    const a = await agent(run, 111, 0);
    const b = await agent(run, 222, 1);
    a.send(sample(1, 0, 2 * GiB, 3 * GiB));
    a.send(sample(2, 1, 1 * GiB, 1 * GiB));
    b.send(sample(3, 0, 4 * GiB, 5 * GiB, 6 * GiB));
    await until('three streams', () => run.latest.size === 3);
    assert.deepEqual([...run.pids].sort(), [111, 222]);
    assert.deepEqual(connected.sort(), [111, 222]);
    assert.equal(changed, 3);
    const st = run.status()!;
    assert.equal(st.streams, 3);
    assert.equal(st.worst.rank, 1, 'the fullest stream is rank 1');
    assert.equal(st.worst.pid, 222);
    assert.equal(st.peakAllocated, 6 * GiB);
    assert.equal(statusText(st), 'rank 1 4.00 / 5.00 GiB ▲6.00');
    assert.equal(run.peak, 6 * GiB);

    b.socket.end();
    await until('rank 1 to leave', () => run.latest.size === 2);
    assert.equal(changed, 4, 'a stream leaving is a change');
    assert.deepEqual([...run.pids].sort(), [111, 222], 'the pids stay: they are the run processes at an OOM');
    assert.equal(run.status()!.peakAllocated, 2 * GiB);
    assert.equal(run.peak, 6 * GiB, "the run's peak outlives the stream");
  });

  it('caps the history per stream (the newest half stays) and the timeline markers; counts windows', async () => {
    const snapshots: string[][] = [];
    const logs: string[] = [];
    const run = await start({
      historyCap: 4,
      on: { snapshot: (p, k) => snapshots.push([p, k]), log: (s, m) => logs.push(`${s.hello.pid} ${m.level} ${m.message}`) },
    });
    const a = await agent(run, 7, null);
    for (let t = 1; t <= 7; t++) a.send(sample(t, 0, t, t));
    await until('7 samples', () => run.latest.get([...run.latest.keys()][0]!)?.sample.t === 7);
    assert.deepEqual(
      [...run.history.values()].map((h) => h.map((s) => s.t)),
      [[5, 6, 7]],
    );
    a.send({ type: 'event', event: 'window_open', t: 10, window: 1 });
    await until('the window to open', () => run.windows.open);
    assert.deepEqual(run.windows, { count: 1, open: true });
    a.send({ type: 'event', event: 'recording', t: 11 });
    a.send({ type: 'event', event: 'backward', t: 12, start: 1, end: 2 });
    a.send({ type: 'event', event: 'window_close', t: 13, window: 1, calls: 3 });
    a.send({ type: 'event', event: 'snapshot', t: 14, path: join(run.dir, 'snapshot-peak-1.pickle'), kind: 'peak' });
    a.send({ type: 'event', event: 'exit', t: 15 });
    a.send({ type: 'log', level: 'warning', message: 'low on memory', t: 16 });
    await until('the log', () => logs.length === 1);
    assert.deepEqual(
      run.events.map((e) => e.event),
      ['window_open', 'backward', 'window_close', 'snapshot'],
      'recording is no marker, and exit comes past the cap of 4',
    );
    assert.deepEqual(run.windows, { count: 1, open: false });
    assert.deepEqual(snapshots, [[join(run.dir, 'snapshot-peak-1.pickle'), 'peak']]);
    assert.deepEqual(logs, ['7 warning low on memory']);
  });

  it('a front end without a timeline (cap 0) keeps no history or markers, yet the live figures and windows', async () => {
    const run = await start({ historyCap: 0 });
    const a = await agent(run, 8, null);
    a.send(sample(1, 0, GiB, GiB));
    a.send({ type: 'event', event: 'window_open', t: 2, window: 1 });
    await until('the window', () => run.windows.count === 1);
    assert.equal(run.latest.size, 1);
    assert.equal(run.history.size, 0);
    assert.equal(run.events.length, 0);
  });

  it('refuses a wrong token and says so', async () => {
    const refused: string[] = [];
    const run = await start({ on: { refused: (why) => refused.push(why) } });
    await agent(run, 9, null, 'not-the-token');
    await until('the refusal', () => refused.length === 1);
    assert.deepEqual(refused, ['wrong token']);
    assert.equal(run.pids.size, 0);
  });

  it('at an OOM reads the GPUs into the run folder; finish waits for it, closes the channel and records the exit', async () => {
    let reads = 0;
    const probe: GpuProbe = {
      source: 'nvidia-smi',
      fallbackReasons: [],
      read: async () => {
        reads++;
        await sleep(150); // a slow driver: finish must still wait for it
        const processes = [
          { pid: 111, used: 3 * GiB },
          { pid: 999, used: 5 * GiB },
        ];
        const device = {
          index: 0,
          name: 'GPU',
          uuid: 'u',
          total: 8 * GiB,
          used: 8 * GiB,
          free: 0,
          reserved: null,
          gpuUtil: null,
          memUtil: null,
          processes,
        };
        return { ok: true, snapshot: { source: 'nvidia-smi', driver: null, devices: [device], at: Date.now() } };
      },
    };
    const run = await start({ gpus: async () => probe });
    const a = await agent(run, 111, null);
    a.send(sample(1, 0, 3 * GiB, 3 * GiB));
    a.send({ type: 'event', event: 'oom', t: 5_000_000, device: 0 });
    await until('the reading to start', () => reads === 1);
    const end = await run.finish({ code: 3, signal: null });
    assert.equal(existsSync(run.server.address), false, 'the socket is gone');
    assert.deepEqual(othersAtOom(join(run.dir, 'snapshot-oom.pickle'), 0, 5_000_000), [{ pid: 999, used: 5 * GiB }]);
    const launch = readJson(join(run.dir, 'launch.json'));
    assert.equal(launch.status, 'ended');
    assert.equal(launch.exit_code, 3);
    assert.equal(launch.launcher, 'cli', 'what launch.json said at the start is kept');
    // No snapshot, no agent log, no agent-disabled file: the agent never started.
    assert.equal(launch.nothing_recorded, 'no-agent');
    assert.equal(end.nothing?.reason, 'no-agent');
    assert.equal(end.peak, 3 * GiB, 'the live peak');
  });

  it('300 OOMs at once: one GPU reading in flight at a time, each OOM recorded with the reading that answered it', async () => {
    let reads = 0;
    let inFlight = 0;
    let most = 0;
    const probe: GpuProbe = {
      source: 'nvidia-smi',
      fallbackReasons: [],
      read: async () => {
        reads++;
        most = Math.max(most, ++inFlight);
        await sleep(100); // nvidia-smi takes its time
        inFlight--;
        const device = { index: 0, name: 'GPU', uuid: 'u', total: GiB, used: GiB, free: 0, reserved: null, gpuUtil: null, memUtil: null };
        return { ok: true, snapshot: { source: 'nvidia-smi', driver: null, devices: [{ ...device, processes: [] }], at: reads } };
      },
    };
    let sources = 0;
    const run = await start({ gpus: async () => (sources++, probe) });
    const a = await agent(run, 111, null);
    for (let i = 0; i < 300; i++) a.send({ type: 'event', event: 'oom', t: 1_000_000 + i, device: 0 });
    const file = join(run.dir, 'gpu-at-oom.jsonl');
    const recorded = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0);
    await until('a reading for every OOM', () => recorded() === 300, 10_000);
    await run.close();
    assert.equal(most, 1, 'at most one reading in flight');
    assert.ok(reads >= 1 && reads < 300, `${reads} readings for 300 OOMs`);
    assert.equal(sources, 1, 'the GPU source is chosen once per run');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t: number; reading: { at: number } });
    assert.deepEqual(
      lines.map((l) => l.t).sort((x, y) => x - y),
      Array.from({ length: 300 }, (_, i) => 1_000_000 + i),
    );
    assert.equal(new Set(lines.map((l) => l.reading.at)).size, reads, 'the OOMs share the readings taken');
  });

  it('a reading asked for while one runs is taken after it, not from the one already running', async () => {
    let n = 0;
    const started: number[] = [];
    const slow: GpuProbe = {
      source: 'nvidia-smi',
      fallbackReasons: [],
      read: async () => {
        started.push(++n);
        await sleep(30);
        return { ok: false, source: 'nvidia-smi', reason: String(n) };
      },
    };
    const p = coalesced(slow);
    const first = p.read();
    const [second, third] = [p.read(), p.read()];
    assert.equal(second, third, 'the two asked meanwhile share one reading');
    const reasons = (await Promise.all([first, second, third])).map((r) => (r.ok ? '' : r.reason));
    assert.deepEqual(reasons, ['1', '2', '2']);
    assert.deepEqual(started, [1, 2]);
    assert.equal((await p.read()).ok, false, 'a later read starts a new one');
    assert.equal(n, 3);
  });

  it("a process's snapshot is a recorded run; a command that never started is not 'nothing recorded'", async () => {
    const run = await start();
    writeFileSync(join(run.dir, 'meta.json'), JSON.stringify({ pid: 5, rank: null }));
    writeFileSync(join(run.dir, 'snapshot-peak-1.pickle'), 'x');
    const end = await run.finish({ code: 0, signal: null }, 'all');
    assert.equal(end.nothing, undefined);
    assert.equal(end.run.processes.length, 1);
    assert.equal(readJson(join(run.dir, 'launch.json')).nothing_recorded, undefined);
    const meta = readJson(join(run.dir, 'meta.json'));
    assert.equal(meta.launcher_exit_code, 0);
    assert.equal(meta.exit_code, 0);

    const never = await start();
    const e2 = await never.finish({ code: 127, signal: null, started: false });
    assert.equal(e2.nothing, undefined);
    const l2 = readJson(join(never.dir, 'launch.json'));
    assert.equal(l2.exit_code, 127);
    assert.equal(l2.nothing_recorded, undefined);
  });
});
