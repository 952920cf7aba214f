import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isSnapshotError } from '../../extension/src/core/errors';
import { readSideLines, readSideText } from '../../extension/src/core/safeFile';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { fixture, ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');
const BASE = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
const HANG_MS = 60_000;

interface Case {
  case: string;
  dir: string;
  snapshot: string;
  expect: 'ok' | 'io';
}
interface Ran {
  code: number | null;
  signal: string | null;
  out: string;
  err: string;
  ms: number;
}

/** A child process with a hang guard: killed after HANG_MS, which the caller sees as signal SIGKILL. */
function run(args: string[]): Promise<Ran> {
  const t0 = Date.now();
  return new Promise((res) => {
    const c = spawn(process.execPath, args, { cwd: ROOT });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const guard = setTimeout(() => c.kill('SIGKILL'), HANG_MS);
    c.on('close', (code, signal) => {
      clearTimeout(guard);
      res({ code, signal, out, err, ms: Date.now() - t0 });
    });
  });
}
const headroom = (...args: string[]) => run(['--max-old-space-size=1024', CLI, ...args]);
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );

describe('hostile run folders through the CLI and readRun', () => {
  let cases: Case[] = [];
  let work: string;
  before(() => {
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
    work = mkdtempSync(join(tmpdir(), 'headroom-hostile-runs-'));
    const g = spawnSync('python3', [join(ROOT, 'test', 'hostile', 'gen_runs.py'), work, BASE], { encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
    cases = g.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Case);
    assert.ok(cases.length > 40);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('check --explain-oom and analyze end with 0 or a typed one-line error, quickly, on every case', async () => {
    const truth = JSON.parse(readFileSync(join(BASE, 'truth.json'), 'utf8')) as { pid: number; processes: { pid: number }[] };
    const other = truth.processes.find((p) => p.pid !== truth.pid)!.pid;
    const base = await headroom('check', join(BASE, 'snapshot-oom-1.pickle'), '--explain-oom');
    assert.match(base.out, new RegExp(`pid ${other}\\b`), 'the real folder names the other process from gpu-at-oom.jsonl');
    const queue = cases.flatMap((c) =>
      [
        ['check', c.snapshot, '--explain-oom'],
        ['analyze', c.snapshot],
      ].map((args) => ({ c, args })),
    );
    const failures: string[] = [];
    const work = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const r = await headroom(...job.args);
        const what = `${job.c.case}: ${job.args[0]} → ${r.signal ?? r.code} in ${r.ms} ms: ${r.err.trim()}`;
        if (r.signal) failures.push(`${what} (killed: a hang or a crash)`);
        else if (/internal error/.test(r.err)) failures.push(what);
        else if (job.c.expect === 'ok' && r.code !== 0) failures.push(what);
        else if (
          job.c.expect === 'io' &&
          !(
            r.code === 2 &&
            /^headroom: cannot analyze: cannot read \S+: (it is (a|an) [^\n]+, not a regular file|no such file)\n$/.test(r.err)
          )
        )
          failures.push(what);
        // A gpu-at-oom.jsonl that is not a regular file inside the folder is never read.
        else if (
          job.args[0] === 'check' &&
          /^gpu-at-oom_jsonl-(devzero|fifo|outside|dir|socket|dangling|hugeline-nonewline)$/.test(job.c.case) &&
          new RegExp(`pid ${other}\\b`).test(r.out)
        ) {
          failures.push(`${job.c.case}: the refused gpu-at-oom.jsonl was read`);
        }
      }
    };
    await Promise.all([work(), work()]);
    assert.deepEqual(failures, []);
  });

  it('readRun on every case: never throws or blocks, refuses what is not a regular file inside the folder', async () => {
    const script = `const { readRun } = require('./extension/src/core/run/runFolder.ts');
      const out = {};
      for (const d of JSON.parse(process.argv[1])) {
        const r = readRun(d);
        out[d] = { launch: r.launch === undefined ? null : typeof r.launch, procs: r.processes.map((p) => ({ meta: p.meta === undefined ? null : typeof p.meta, samples: p.samples.length, events: p.events.length, snapshots: p.snapshots.map((s) => s.kind), backward: p.backward.every((b) => Number.isFinite(b.startUs) && Number.isFinite(b.endUs)) })) };
      }
      process.stdout.write(JSON.stringify(out));`;
    const r = await run(['--max-old-space-size=1024', '--import', 'tsx', '-e', script, JSON.stringify(cases.map((c) => c.dir))]);
    assert.equal(r.signal, null, `readRun hung or crashed: ${r.err}`);
    assert.equal(r.code, 0, r.err);
    const got = JSON.parse(r.out) as Record<
      string,
      { launch: string | null; procs: { meta: string | null; samples: number; events: number; snapshots: string[]; backward: boolean }[] }
    >;
    // Expected counts from the base folder's own files, read here.
    const lines = (f: string) => readFileSync(join(BASE, f), 'utf8').split('\n').filter(Boolean).length;
    const [samples, events] = [lines('samples.jsonl'), lines('events.jsonl')];
    for (const c of cases) {
      const p = got[c.dir]!;
      assert.equal(p.procs.length, 1, c.case);
      const [proc] = p.procs;
      const refused = /-(devzero|fifo|outside|dir|socket|dangling|hugeline-nonewline)$/.test(c.case);
      if (c.case.startsWith('samples_jsonl-')) assert.equal(proc!.samples, refused ? 0 : samples, c.case);
      else if (c.case !== 'wrong-types') assert.equal(proc!.samples, samples, c.case);
      if (c.case.startsWith('events_jsonl-')) assert.equal(proc!.events, refused ? 0 : events, c.case);
      if (c.case.startsWith('meta_json-') || c.case === 'wrong-types') assert.equal(proc!.meta, null, c.case);
      else assert.equal(proc!.meta, 'object', c.case);
      if (c.case.startsWith('launch_json-') || c.case === 'wrong-types') assert.equal(p.launch, null, c.case);
      assert.deepEqual(proc!.snapshots, c.expect === 'io' ? [] : c.case === 'snapshot-nokind' ? ['other'] : ['oom'], c.case);
      assert.ok(proc!.backward, c.case);
    }
  });
});

describe('safe file access', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'headroom-safefile-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a FIFO is refused at once, async and sync, without waiting for a writer', async () => {
    const fifo = join(dir, 'snapshot-oom.pickle');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const e = await rejection(loadSnapshotFile(fifo));
    assert.ok(isSnapshotError(e) && e.code === 'io' && /FIFO/.test(e.message), String(e));
    // The synchronous reader in a child: if it blocked, only a kill would end it.
    const script = `const { readSideText } = require('./extension/src/core/safeFile.ts');
      try { readSideText(process.argv[1], { root: process.argv[2], maxBytes: 1024 }); } catch (e) { process.stdout.write(e.code + ': ' + e.message); }`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script, fifo, dir], { cwd: ROOT, encoding: 'utf8', timeout: HANG_MS });
    assert.equal(r.signal, null, 'the synchronous open blocked');
    assert.match(r.stdout, /^io: .*FIFO/);
  });

  it('a link out of the folder is refused; one inside it is read', () => {
    const inner = join(dir, 'run');
    mkdirSync(inner);
    writeFileSync(join(dir, 'secret.json'), '{"a":1}');
    writeFileSync(join(inner, 'real.json'), '{"b":2}');
    symlinkSync('../secret.json', join(inner, 'meta.json'));
    symlinkSync('real.json', join(inner, 'launch.json'));
    assert.throws(
      () => readSideText(join(inner, 'meta.json'), { root: inner, maxBytes: 1024 }),
      (e: unknown) => isSnapshotError(e) && e.code === 'io' && /outside the run folder/.test(e.message),
    );
    assert.equal(readSideText(join(inner, 'launch.json'), { root: inner, maxBytes: 1024 }), '{"b":2}');
  });

  it('size caps: a file over the cap is refused, a line over the cap is skipped across chunk boundaries, reading stops at maxBytes', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, 'x'.repeat(5000));
    assert.throws(
      () => readSideText(big, { root: dir, maxBytes: 4096 }),
      (e: unknown) => isSnapshotError(e) && e.code === 'limit',
    );
    const jl = join(dir, 'samples.jsonl');
    const huge = 'h'.repeat(3 << 20); // spans several 1 MiB reads
    writeFileSync(jl, `a\n${huge}\nb\n${'c'.repeat(100)}\n${huge}`);
    assert.deepEqual([...readSideLines(jl, { root: dir, maxBytes: 64 << 20, maxLine: 1024 })], ['a', 'b', 'c'.repeat(100)]);
    assert.deepEqual(
      [...readSideLines(jl, { root: dir, maxBytes: 4, maxLine: 1024 })],
      ['a'],
      'the first 4 bytes, "a\\nhh": the cut line is dropped',
    );
    writeFileSync(jl, 'a\nlast');
    assert.deepEqual(
      [...readSideLines(jl, { root: dir, maxBytes: 1024, maxLine: 1024 })],
      ['a', 'last'],
      'a last line without a newline is kept',
    );
  });

  it('a load cancelled while its open is still queued rejects at once as cancelled', async () => {
    // Four opens of FIFOs without O_NONBLOCK hold libuv's four pool threads, so the snapshot's own
    // open waits behind them: only the abort can end that wait.
    const holders: string[] = [];
    const blocked: Promise<FileHandle>[] = [];
    for (let i = 0; i < 4; i++) {
      const f = join(dir, `hold-${i}`);
      assert.equal(spawnSync('mkfifo', [f]).status, 0);
      holders.push(f);
      blocked.push(open(f, 'r'));
    }
    try {
      const abort = new AbortController();
      const load = rejection(loadSnapshotFile(fixture('oom_plain').path, { signal: abort.signal }));
      setTimeout(() => abort.abort(), 100);
      const e = await Promise.race([load, new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
      assert.ok(isSnapshotError(e) && e.code === 'cancelled', String(e));
    } finally {
      // A writer on each FIFO lets the held opens finish.
      for (const f of holders) closeSync(openSync(f, constants.O_RDWR | constants.O_NONBLOCK));
      for (const h of await Promise.all(blocked)) await h.close();
    }
  });
});
