// GPU tests: a real training loop, a forced OOM and a torchrun job, run through `headroom run`.
// They need a CUDA GPU and PyTorch, so CI (which has neither) skips them and says so; on the GPU
// host: node scripts/gpu-carry.mjs here, then run .carry/gpu.test.js there (see README).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, resolveAt } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { recordingMode, windowNote } from '../../extension/src/core/run/recordingMode';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { cudaAvailable, NO_GPU } from './cuda';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const WORK = join(ROOT, 'test', 'gpu', 'workloads');

const GPU = cudaAvailable();
const SKIP = GPU ? false : NO_GPU;

function headroomRun(out: string, args: string[], cmd: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, ...args, '--', ...cmd], {
    encoding: 'utf8',
    cwd: WORK,
    maxBuffer: 1 << 28,
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function lines<T>(p: string): T[] {
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

describe('headroom run on a GPU', { skip: SKIP }, () => {
  it('a transformer LM: live samples, snapshots and the engine agree with PyTorch', async () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-'));
    const log = join(out, 'workload.jsonl');
    const r = headroomRun(out, ['--sample-ms', '50'], ['python3', 'lm_train.py', '--steps', '12', '--log', log, '--pause', '0.4']);
    assert.equal(r.code, 0, r.err);
    const [dir] = readdirSync(out)
      .filter((d) => !d.endsWith('.jsonl') && !d.endsWith('.json'))
      .map((d) => join(out, d));
    const run = readRun(dir!);
    assert.equal(run.processes.length, 1);
    const p = run.processes[0]!;
    assert.equal(run.launch?.exit_code, 0);
    // Samples taken in the quiet pause after each step hold exactly what the workload logged.
    const logged = lines<{ step: number; t: number; allocated: number; reserved: number }>(log);
    let matched = 0;
    for (const l of logged) {
      const inPause = p.samples.filter((s) => s.device === 0 && s.t > l.t + 20_000 && s.t < l.t + 350_000);
      assert.ok(inPause.length > 0, `a sample during step ${l.step}'s pause`);
      for (const s of inPause) assert.deepEqual([s.allocated, s.reserved], [l.allocated, l.reserved], `step ${l.step}`);
      matched += inPause.length;
    }
    assert.ok(matched >= logged.length);
    // Snapshots at exit and at the peak; the engine's figures against memory_stats(). The run records
    // in windows (the default, docs/running.md): the first window closes after 6 backward() calls and
    // writes the peak snapshot, then the recorder is off, so the exit snapshot's trace no longer holds
    // the peak. The peak snapshot must, and it is the one Headroom analyzes (bestSnapshot).
    const kinds = p.snapshots.map((s) => s.kind);
    assert.ok(kinds.includes('exit'), kinds.join(','));
    assert.ok(kinds.includes('peak'), kinds.join(','));
    assert.equal(recordingMode(p).mode, 'window');
    assert.ok(
      p.events.some((e) => e.event === 'window_close' && e.peak_snapshot === true),
      'a window closed and wrote the peak snapshot',
    );
    const best = bestSnapshot(p)!;
    assert.equal(best.kind, 'peak', 'the snapshot Headroom analyzes is the peak one');
    const stats = JSON.parse(readFileSync(`${log}.stats.json`, 'utf8')) as { requested_bytes_peak: number; max_memory_allocated: number };
    const s = await loadSnapshotFile(best.path);
    const a = analyzeDevice(s, 0);
    assert.equal(a.replay.peak.requestedBytes, stats.requested_bytes_peak);
    // The allocator replay of the window (begun with memory already held) is exact: PyTorch's own allocated peak.
    assert.ok(a.allocated.exact, a.allocated.exact ? '' : a.allocated.why);
    assert.equal(a.allocated.peak, stats.max_memory_allocated);
    // The samples carry the same peak, so the report says nothing of a peak missed between windows.
    assert.equal(Math.max(...p.samples.filter((x) => x.device === 0).map((x) => x.max_requested)), stats.requested_bytes_peak);
    assert.doesNotMatch(windowNote(p, 0, a.replay.peak.requestedBytes) ?? '', /is above this snapshot's/);
    // The exit snapshot still reads, and its replay never invents a peak above PyTorch's.
    const exit = analyzeDevice(await loadSnapshotFile(p.snapshots.find((x) => x.kind === 'exit')!.path), 0);
    assert.ok(exit.replay.peak.requestedBytes <= stats.requested_bytes_peak, `exit snapshot's peak ${exit.replay.peak.requestedBytes}`);
    // backward() call sites and windows, and the engine crediting frameless memory to them. In
    // window mode a backward() is recorded only while a window is open: as many as the windows
    // counted (a window still open at exit counts the calls after its opening).
    const closes = p.events.filter((e) => e.event === 'window_close');
    const lastOpen = p.events.map((e) => e.event).lastIndexOf('window_open');
    const openAtExit = lastOpen > p.events.map((e) => e.event).lastIndexOf('window_close');
    const inOpen = openAtExit ? p.events.slice(lastOpen).filter((e) => e.event === 'backward').length : 0;
    assert.equal(p.backward.length, closes.reduce((n, e) => n + Number(e.calls), 0) + inOpen);
    assert.ok(p.backward.length >= 6 && p.backward.length <= 12, `${p.backward.length} backward() calls recorded`);
    assert.ok(p.backward.every((b) => b.file.endsWith('lm_train.py') && b.endUs > b.startUs));
    assert.equal(p.meta?.gpu && (p.meta.gpu as { index: number }).index, 0);
    const withCalls = analyzeDevice(s, 0, undefined, p.backward);
    let credited = 0;
    for (let i = 0; i < withCalls.replay.n; i += Math.max(1, Math.floor(withCalls.replay.n / 200))) {
      const bw = attributeAt(s, withCalls, resolveAt(withCalls, i)).buckets.find((b) => b.kind === 'backward');
      for (const site of bw?.sites ?? []) {
        assert.ok(site.file.endsWith('lm_train.py'), site.file);
        credited += site.bytes;
      }
    }
    assert.ok(credited > 0, 'frameless backward memory is credited to the loss.backward() line');
    if (process.env.HEADROOM_KEEP) {
      mkdirSync(process.env.HEADROOM_KEEP, { recursive: true });
      for (const f of ['meta.json', 'events.jsonl', 'launch.json', 'snapshot-peak.pickle'])
        copyFileSync(join(p.dir, f), join(process.env.HEADROOM_KEEP, f));
    }
  });

  it('when the launcher (the editor side) is killed mid-run, the workload finishes and its folder is complete', async () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-'));
    const launcher = spawn(
      process.execPath,
      [CLI, 'run', '--out', out, '--', 'python3', 'lm_train.py', '--steps', '8', '--log', join(out, 'w.jsonl'), '--pause', '0.5'],
      {
        cwd: WORK,
        stdio: 'ignore',
      },
    );
    let meta: { pid?: number } | undefined;
    for (let i = 0; i < 200 && !meta?.pid; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const dirs = existsSync(out) ? readdirSync(out).filter((d) => d.includes('lm_train')) : [];
      if (dirs[0] && existsSync(join(out, dirs[0], 'meta.json'))) meta = JSON.parse(readFileSync(join(out, dirs[0], 'meta.json'), 'utf8'));
    }
    assert.ok(meta?.pid, 'the workload started recording');
    await new Promise((r) => setTimeout(r, 1000));
    launcher.kill('SIGKILL');
    // The workload is now an orphan: wait for it to finish on its own.
    for (let i = 0; i < 600; i++) {
      try {
        process.kill(meta.pid!, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const dir = join(out, readdirSync(out).find((d) => d.includes('lm_train'))!);
    const run = readRun(dir);
    const p = run.processes[0]!;
    assert.equal(lines(join(out, 'w.jsonl')).length, 8, 'all steps ran');
    assert.ok(p.snapshots.some((s) => s.kind === 'exit'));
    assert.equal(p.meta?.status, 'ended');
    assert.ok(p.samples.length > 10);
    assert.equal(run.launch?.status, 'running', 'the launcher died before it could record the end');
  });

  it('a forced OOM: the exception passes through and an OOM snapshot is written', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-'));
    const r = headroomRun(out, ['--cap-gib', '2'], ['python3', 'oom.py']);
    assert.equal(r.code, 1);
    assert.match(r.err, /OutOfMemoryError: CUDA out of memory/);
    const run = readRun(join(out, readdirSync(out)[0]!));
    const p = run.processes[0]!;
    assert.ok(p.snapshots.some((s) => s.kind === 'oom'));
    assert.ok(p.events.some((e) => e.event === 'oom'));
    assert.ok(p.events.some((e) => e.event === 'exception' && /CUDA out of memory/.test(String(e.message))));
  });

  it('torchrun with 2 workers: two rank streams, and nothing from the launcher', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-'));
    const r = headroomRun(out, [], ['torchrun', '--standalone', '--nproc-per-node', '2', 'ranks.py']);
    assert.equal(r.code, 0, r.err);
    const dirs = readdirSync(out).sort();
    assert.equal(dirs.length, 3, dirs.join(','));
    const run = readRun(join(out, dirs[0]!));
    assert.deepEqual(
      run.processes.map((p) => p.rank),
      [0, 1],
    );
    for (const p of run.processes) {
      assert.ok(p.samples.length > 0);
      assert.equal(p.meta?.world_size, 2);
      assert.ok(p.snapshots.some((s) => s.kind === 'exit'));
    }
    assert.ok(!existsSync(join(run.dir, 'meta.json')), 'the torchrun launcher records nothing');
    const gpus = Number(execFileSync('python3', ['-c', 'import torch; print(torch.cuda.device_count())'], { encoding: 'utf8' }).trim());
    assert.deepEqual(
      run.processes.map((p) => (p.meta?.gpu as { index: number }).index),
      gpus >= 2 ? [0, 1] : [0, 0],
      'each rank records the GPU it used',
    );
  });
});
