import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { formatBytes, parseBytes, parseSizeWithUnit } from '../../extension/src/core/format';
import { fixture, ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');

/** Runs the built `headroom` CLI as a real process. */
function headroom(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('headroom CLI', () => {
  before(() => {
    // Always the current sources: a stale dist/ would test old code.
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  });

  it('analyze --json prints the documented shape, with the replay’s figures', () => {
    const f = fixture('mlp_train');
    const r = headroom('analyze', f.path, '--json', '--top', '0');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.device, 0);
    for (const k of ['requested_bytes', 'allocated_bytes', 'trace_index', 'time_us']) assert.ok(k in j.peak, k);
    assert.equal(j.peak.requested_bytes, f.truth!.requested_bytes_peak);
    assert.equal(j.end.requested_bytes, f.truth!.requested_bytes_current);
    assert.equal(j.reserved_bytes.peak, f.truth!.max_memory_reserved);
    assert.equal(j.reserved_bytes.end, f.truth!.memory_reserved);
    // Allocated is the allocator replay's, exact: PyTorch's max_memory_allocated and memory_allocated.
    assert.deepEqual(j.allocated, { exact: true, peak_bytes: f.truth!.max_memory_allocated });
    assert.equal(j.end.allocated_bytes, f.truth!.memory_allocated);
    for (const l of j.lines) for (const k of ['file', 'line', 'self_bytes', 'inclusive_bytes', 'blocks']) assert.ok(k in l, k);
    for (let i = 1; i < j.lines.length; i++) {
      const [a, b] = [j.lines[i - 1], j.lines[i]];
      assert.ok(a.self_bytes > b.self_bytes || (a.self_bytes === b.self_bytes && a.inclusive_bytes >= b.inclusive_bytes), 'sorted by self, then inclusive');
    }
    for (const b of j.buckets) assert.ok(['before_recording', 'backward', 'no_stack', 'library'].includes(b.kind));
    const live = j.lines.reduce((n: number, l: { self_bytes: number }) => n + l.self_bytes, 0) + j.buckets.reduce((n: number, b: { bytes: number }) => n + b.bytes, 0);
    assert.equal(live, j.peak.requested_bytes);
    assert.ok(typeof j.fragmentation.reserved_unallocated_bytes === 'number');
    assert.ok(Array.isArray(j.ooms));
  });

  it('analyze --at end / --at INDEX / --top / --device', () => {
    const f = fixture('oom_plain');
    const end = JSON.parse(headroom('analyze', f.path, '--json', '--at', 'end').out);
    assert.equal(end.at.requested_bytes, f.truth!.requested_bytes_current);
    const at0 = JSON.parse(headroom('analyze', f.path, '--json', '--at', '0').out);
    assert.equal(at0.at.trace_index, 0);
    assert.equal(JSON.parse(headroom('analyze', f.path, '--json', '--top', '1').out).lines.length, 1);
    assert.equal(end.ooms.length, 1);
    assert.equal(end.ooms[0].requested_bytes, f.truth!.oom!.alloc);
    const bad = headroom('analyze', f.path, '--device', '3');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /device 3 is not in .* \(it has: 0\)/);
    const out = headroom('analyze', f.path, '--at', '99999');
    assert.equal(out.code, 2);
    assert.match(out.err, /out of range: device 0 has 23 events/);
  });

  it('analyze prints a readable report', () => {
    const r = headroom('analyze', fixture('leaky_demo').path);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Peak\s+\S+ \S+ requested \(≈\S+ \S+ allocated, estimate\)/m);
    assert.match(r.out, /train_leaky\.py:\d+/);
    assert.match(r.out, /\[autograd backward \(no Python stack\)\]/);
    assert.match(r.out, /Fragmentation \(final state\)/);
  });

  it('check exits 1 with one line over budget, 0 within, for peak and reserved', () => {
    const f = fixture('oom_plain');
    const peak = f.truth!.requested_bytes_peak;
    const over = headroom('check', f.path, '--max-peak', `${peak - 1}B`);
    assert.equal(over.code, 1);
    assert.equal(over.out.trim().split('\n').length, 1);
    assert.match(over.out, /^over budget: device 0 peaks at/);
    assert.equal(headroom('check', f.path, '--max-peak', `${peak}B`).code, 0);
    assert.equal(headroom('check', f.path, '--max-peak', '20GiB').code, 0);
    const res = headroom('check', f.path, '--max-peak', '20GiB', '--max-reserved', `${f.truth!.max_memory_reserved - 1}B`);
    assert.equal(res.code, 1);
    assert.match(res.out, /reserves up to/);
    assert.equal(headroom('check', f.path, '--max-peak', 'lots').code, 2);
    assert.equal(headroom('check', f.path).code, 2);
  });

  it('check --explain-oom diagnoses the OOM in a snapshot, or the OOM messages in a log, with remedies', () => {
    const f = fixture('oom_plain');
    const snap = headroom('check', f.path, '--explain-oom');
    assert.equal(snap.code, 0);
    assert.match(snap.out, /^device 0, event #\d+: OOM: cap — The device had .* free/);
    assert.match(snap.out, /\nRemedies:\n {2}- Raise or remove the memory cap/);
    // A log with PyTorch's own message in it (the capture's truth file holds the message it raised).
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const log = join(dir, 'train.log');
    writeFileSync(log, `step 12 loss 2.31\nTraceback (most recent call last):\ntorch.OutOfMemoryError: ${(f.truth as unknown as { oom: { message: string } }).oom.message}\n`);
    const text = headroom('check', log, '--explain-oom');
    assert.equal(text.code, 0);
    assert.match(text.out, /^OOM: cap — /);
    writeFileSync(log, 'nothing failed\n');
    assert.match(headroom('check', log, '--explain-oom').out, /no CUDA out-of-memory message/);
    // With a budget as well, the budget still decides the exit code.
    assert.equal(headroom('check', f.path, '--explain-oom', '--max-peak', '1KiB').code, 1);
  });

  it('check --explain-oom --json reads standard input: one entry per message, in order, with the figures read', () => {
    const cached = 'RuntimeError: CUDA out of memory. Tried to allocate 1.72 GiB (GPU 0; 10.76 GiB total capacity; 4.01 GiB already allocated; 356.00 MiB free; 5.54 GiB cached)';
    const input = `[rank0]: ${cached}\nretrying\nRuntimeError: CUDA error: out of memory\n`;
    const r = spawnSync(process.execPath, [CLI, 'check', '-', '--explain-oom', '--json'], { input, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { ooms: { class: string; figures: Record<string, number>; reason: string; remedies: { id: string; title: string; change: string; effect: string }[]; line: number }[] };
    assert.deepEqual(j.ooms.map((o) => [o.class, o.line]), [['fragmentation', 1], ['unknown', 3]]);
    assert.deepEqual(j.ooms[0]!.figures, { gpu: 0, tried: Math.round(1.72 * 2 ** 30), total: Math.round(10.76 * 2 ** 30), allocated: Math.round(4.01 * 2 ** 30), free: 356 * 2 ** 20, cached: Math.round(5.54 * 2 ** 30) });
    assert.ok(j.ooms[0]!.remedies.every((x) => x.id && x.title && x.change && x.effect));
    assert.equal(headroom('check', '-', '--json').code, 2, '--json goes with --explain-oom');
  });

  it('check LOG --explain-oom --run RUN: the run’s snapshot of the same OOM is the evidence', () => {
    const run = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
    const t = JSON.parse(readFileSync(join(run, 'truth.json'), 'utf8')) as { message: string };
    const log = join(mkdtempSync(join(tmpdir(), 'headroom-cli-')), 'job.log');
    writeFileSync(log, `torch.OutOfMemoryError: ${t.message}\n`);
    const alone = JSON.parse(headroom('check', log, '--explain-oom', '--json').out) as { ooms: { class: string; evidence?: string }[] };
    const withRun = JSON.parse(headroom('check', log, '--explain-oom', '--json', '--run', run).out) as { ooms: { class: string; evidence?: string; derived: { pools?: unknown[] } }[] };
    assert.equal(alone.ooms[0]!.evidence, undefined);
    assert.match(withRun.ooms[0]!.evidence!, /snapshot-oom-1\.pickle/);
    assert.ok(Array.isArray(withRun.ooms[0]!.derived.pools), 'the snapshot’s pools');
    assert.equal(withRun.ooms[0]!.class, 'non-pytorch');
    // Another OOM (other figures) is not this run's: the message's own reading stays.
    writeFileSync(log, `torch.OutOfMemoryError: ${t.message.replace('1024.00 MiB', '512.00 MiB')}\n`);
    assert.equal((JSON.parse(headroom('check', log, '--explain-oom', '--json', '--run', run).out) as { ooms: { evidence?: string }[] }).ooms[0]!.evidence, undefined);
  });

  it('whatif --json: the recorded peaks and one prediction per --alloc-conf, in order; a misspelled option is refused', () => {
    const snap = join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.pickle');
    // frag_oom.py capped PyTorch at 1,636 MiB; K=V is read as K:V.
    const r = headroom('whatif', snap, '--alloc-conf', 'max_split_size_mb=64', '--alloc-conf', 'roundup_power2_divisions:4', '--cap-gib', String(1636 / 1024), '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as { limit_is_cap: boolean; recorded: Record<string, number>; predicted: { alloc_conf: string; reserved_peak_bytes: number; allocated_peak_bytes: number; cached_at_peak_bytes: number; ooms: unknown[] }[] };
    assert.equal(j.limit_is_cap, true);
    assert.ok(j.predicted.every((p) => p.cached_at_peak_bytes >= 0 && p.cached_at_peak_bytes <= p.reserved_peak_bytes));
    const t = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.truth.json'), 'utf8')) as { max_memory_allocated: number; max_memory_reserved: number };
    assert.equal(j.recorded.allocated_peak_bytes, t.max_memory_allocated);
    assert.equal(j.recorded.reserved_peak_bytes, t.max_memory_reserved);
    assert.deepEqual(j.predicted.map((p) => p.alloc_conf), ['max_split_size_mb=64', 'roundup_power2_divisions:4']);
    assert.deepEqual(j.predicted[0]!.ooms, []);
    assert.match(headroom('whatif', snap, '--alloc-conf', 'max_split_size_mb:64', '--cap-gib', '1.59765625').out, /the recorded OOM at event #\d+ does not happen/);
    // Without a limit, the recorded OOM's: a memory fraction refused it, and the range it lies in is said.
    assert.match(headroom('whatif', snap, '--alloc-conf', 'expandable_segments:True').out, /a memory fraction refused it\); the cap lies between 1\.50 GiB and/);
    assert.equal(headroom('whatif', snap, '--alloc-conf', 'expandable_segments:True', '--cap-gib', '2', '--device-gib', '3').code, 2);
    const bad = headroom('whatif', snap, '--alloc-conf', 'max_spilt_size_mb:64');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown allocator option max_spilt_size_mb/);
  });

  it('check --no-leak exits 1 on per-iteration growth with the line, 0 on a clean loop', () => {
    const leaks = join(ROOT, 'test', 'fixtures', 'leaks');
    const bad = headroom('check', join(leaks, 'leak_append.pickle'), '--no-leak');
    assert.equal(bad.code, 1);
    assert.match(bad.out, /^device 0: Live memory grows steadily by \+[\d.]+ \S+ per iteration/);
    assert.match(bad.out, /leaks\.py:\d+ \(train\) keeps (1 tensor of [\d.]+ \S+ per iteration|\d+ tensors of [\d.]+ \S+ per iteration = )/);
    const good = headroom('check', join(leaks, 'clean_train.pickle'), '--no-leak');
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /^within budget: device 0: No leak/);
  });

  it('errors go to stderr with exit code 2 and no stack trace, unless --debug', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const bad = join(dir, 'bad.pickle');
    writeFileSync(bad, readFileSync(fixture('mlp_train').path).subarray(0, 1000));
    for (const args of [['analyze', bad], ['analyze', join(dir, 'missing.pickle')], ['frobnicate'], ['analyze', bad, '--bogus']]) {
      const r = headroom(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.out, '');
      assert.match(r.err, /^headroom: /);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    }
    assert.match(headroom('analyze', bad).err, /ends after 1000 bytes/);
    assert.match(headroom('analyze', bad, '--debug').err, /\n\s+at /);
  });

  it('lint prints file:line:col: severity HRnnn, exits 1 on an error-level finding, and --select narrows it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-lint-'));
    writeFileSync(join(dir, 'train.py'), 'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n');
    writeFileSync(join(dir, 'ok.py'), 'import torch\nfrom torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)\n');
    writeFileSync(join(dir, 'notes.txt'), 'total += loss');
    const r = headroom('lint', dir);
    assert.equal(r.code, 1, r.err);
    // HR004 too: the loop runs the model over data and nothing trains (evaluation, whatever the names).
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 2);
    const at = join(dir, 'train.py').replace(/[.*+?^$()[\]\\]/g, '\\$&');
    assert.match(lines[0]!, new RegExp(`^${at}:3:1: error HR004 `));
    assert.match(lines[1]!, new RegExp(`^${at}:5:5: error HR001 \`total\` accumulates \`loss\``));
    const only = headroom('lint', dir, '--select', 'HR006');
    assert.deepEqual([only.code, only.out], [0, '']);
    const j = JSON.parse(headroom('lint', dir, '--json').out) as { files: number; findings: { rule: string; fixes: unknown[] }[] };
    assert.equal(j.files, 2);
    assert.deepEqual(j.findings.map((f) => [f.rule, f.fixes.length]), [['HR004', 1], ['HR001', 2]]);
    const bad = headroom('lint', dir, '--select', 'HR999');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown rule HR999/);
  });
});

describe('headroom CLI: help, sizes, the lines footer, diff and run', () => {
  before(() => {
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  });

  it('every command answers --help and -h with its usage on stdout, exit 0', () => {
    for (const cmd of ['analyze', 'check', 'diff', 'lint', 'run']) {
      for (const h of ['--help', '-h']) {
        const r = headroom(cmd, h);
        assert.deepEqual([r.code, r.err], [0, ''], `${cmd} ${h}`);
        assert.match(r.out, new RegExp(`^usage: headroom ${cmd} `), `${cmd} ${h}`);
      }
    }
    // Among other options too, and as `headroom help CMD`; after run's `--` it is the workload's.
    assert.match(headroom('analyze', 'x.pickle', '--top', '3', '--help').out, /^usage: headroom analyze /);
    assert.match(headroom('help', 'diff').out, /^usage: headroom diff /);
    // The overview is one screen: each command on a line of its own, what it is for.
    const top = headroom('--help');
    assert.equal(top.code, 0);
    const commands = ['analyze', 'check', 'demo', 'diff', 'lint', 'mcp', 'ranks', 'run', 'whatif', 'wheel'];
    for (const cmd of commands) assert.match(top.out, new RegExp(`^  ${cmd} +\\S`, 'm'), cmd);
    const lines = top.out.trimEnd().split('\n');
    assert.ok(lines.length <= 40 && lines.every((l) => l.length <= 100), `one screen: ${lines.length} lines, widest ${Math.max(...lines.map((l) => l.length))}`);
    // Each command's help: its options and an example; the reader's limits have a page of their own.
    for (const cmd of commands) {
      const h = headroom('help', cmd).out;
      assert.match(h, /^ {2}Examples?: \S/m, `${cmd}: an example`);
      assert.doesNotMatch(h, /--limit NAME=VALUE/, `${cmd}: the limits are in headroom help limits`);
    }
    assert.match(headroom('help', 'limits').out, /--limit NAME=VALUE/);
    const unknown = headroom('help', 'nonesuch');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /topics: limits, analyze/);
    const py = spawnSync(process.execPath, [CLI, 'run', '--out', mkdtempSync(join(tmpdir(), 'headroom-help-')), '--', 'python3', '-c', 'import sys; print(sys.argv[1:])', '--help'], { encoding: 'utf8' });
    assert.equal(py.status, 0, py.stderr);
    assert.equal(py.stdout, "['--help']\n");
  });

  it('- reads standard input (analyze, lint), and analyze takes a run folder (its best snapshot)', () => {
    const demo = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');
    const byPath = headroom('analyze', demo, '--json');
    const piped = spawnSync(process.execPath, [CLI, 'analyze', '-', '--json'], { input: readFileSync(demo), encoding: 'utf8' });
    assert.equal(piped.status, 0, piped.stderr);
    assert.deepEqual((JSON.parse(piped.stdout) as { peak: unknown }).peak, (JSON.parse(byPath.out) as { peak: unknown }).peak);
    const script = join(ROOT, 'demo', 'workspace', 'train_leaky.py');
    const lint = spawnSync(process.execPath, [CLI, 'lint', '-'], { input: readFileSync(script), encoding: 'utf8' });
    const direct = headroom('lint', script);
    assert.equal(lint.status, 1);
    assert.equal(lint.stdout, direct.out.replaceAll(direct.out.split(':')[0]!, '<stdin>'));
    // A run folder as `headroom run` leaves it: meta.json, an exit and a peak snapshot (the peak's is read).
    const run = mkdtempSync(join(tmpdir(), 'headroom-runpick-'));
    writeFileSync(join(run, 'meta.json'), JSON.stringify({ pid: 1, status: 'ended' }));
    writeFileSync(join(run, 'snapshot-peak.pickle'), readFileSync(demo));
    writeFileSync(join(run, 'snapshot-exit-2.pickle'), readFileSync(join(ROOT, 'test', 'fixtures', 'snapshots', 'e2e_train_b64.pickle')));
    const fromRun = headroom('analyze', run, '--json');
    assert.equal(fromRun.code, 0, fromRun.err);
    assert.equal(fromRun.err, `headroom: ${join(run, 'snapshot-peak.pickle')}\n`);
    assert.deepEqual((JSON.parse(fromRun.out) as { peak: unknown }).peak, (JSON.parse(byPath.out) as { peak: unknown }).peak);
    // A run folder with no snapshot says so, and what to do is in the message.
    const empty = mkdtempSync(join(tmpdir(), 'headroom-runpick-'));
    writeFileSync(join(empty, 'meta.json'), JSON.stringify({ pid: 1, status: 'running' }));
    const none = headroom('analyze', empty);
    assert.equal(none.code, 2);
    assert.match(none.err, /holds no snapshot: its processes wrote none/);
  });

  it('sizes need a unit: a bare number is refused with a hint, 150B is bytes', () => {
    const f = fixture('oom_plain');
    for (const flag of ['--max-peak', '--max-reserved']) {
      const r = headroom('check', f.path, flag, '150');
      assert.equal(r.code, 2);
      assert.equal(r.out, '');
      assert.equal(r.err, `headroom: ${flag} expects a size with a unit, such as 20GiB or 512MiB; got "150" (150B if you mean bytes)\n`);
    }
    // 150 bytes is far below any real peak: over budget.
    assert.equal(headroom('check', f.path, '--max-peak', '150B').code, 1);
    assert.equal(headroom('check', f.path, '--max-peak', '20 GiB').code, 0);
    const lim = headroom('analyze', f.path, '--limit', 'file-bytes=4000');
    assert.equal(lim.code, 2);
    assert.match(lim.err, /--limit file-bytes expects a size with a unit, such as 4GiB; got "4000"/);
    // A count limit takes a bare number.
    assert.equal(headroom('analyze', f.path, '--limit', 'trace-entries=4000').code, 0);
  });

  it('the "more lines" footer counts the lines left out, and --top 0 shows them all', () => {
    const f = fixture('leaky_demo').path;
    const all = JSON.parse(headroom('analyze', f, '--json', '--top', '0').out) as { lines: { file: string; line: number; self_bytes: number }[] };
    // The text report lists the lines that hold memory themselves.
    const holders = all.lines.filter((l) => l.self_bytes > 0).map((l) => `${l.file}:${l.line} (`);
    assert.ok(holders.length > 3, 'the fixture has more than 3 lines holding memory');
    for (const top of ['1', '3', String(holders.length - 1), String(holders.length), String(holders.length + 5), '0']) {
      const out = headroom('analyze', f, '--top', top).out;
      const listed = holders.filter((h) => out.includes(h)).length;
      const want = top === '0' ? holders.length : Math.min(Number(top), holders.length);
      assert.equal(listed, want, `--top ${top}`);
      const footer = /… (\d+) more lines? \(--top 0 shows all/.exec(out);
      if (listed === holders.length) assert.equal(footer, null, `--top ${top}: nothing left out, no footer`);
      else assert.equal(Number(footer?.[1]), holders.length - listed, `--top ${top}`);
    }
    assert.equal(headroom('analyze', f, '--top', '-1').code, 2);
  });

  it('diff warns when the two snapshots share no source lines, and not when they do', () => {
    const a = fixture('leaky_demo').path;
    const b = fixture('frag_oom').path;
    const ja = JSON.parse(headroom('analyze', a, '--json', '--top', '0').out) as { lines: { file: string }[] };
    const jb = JSON.parse(headroom('analyze', b, '--json', '--top', '0').out) as { lines: { file: string }[] };
    assert.ok(!ja.lines.some((x) => jb.lines.some((y) => y.file === x.file)), 'the two fixtures come from different scripts');
    const r = headroom('diff', a, b);
    assert.equal(r.code, 0);
    assert.ok(r.err.includes(`${a} and ${b} share no source lines: they look like different scripts; the per-line diff compares nothing`), r.err);
    const j = headroom('diff', a, b, '--json');
    assert.ok(JSON.parse(j.out).lines_total > 0, 'stdout stays JSON');
    assert.match(j.err, /share no source lines/);
    assert.doesNotMatch(headroom('diff', a, a).err, /share no source lines/);
  });
});

describe('headroom run when nothing was recorded', () => {
  const FAKE_TORCH = join(ROOT, 'test', 'agent', 'fake_torch');
  const HARM = join(ROOT, 'test', 'agent', 'workloads', 'harm.py');
  /** `headroom run --out DIR -- ARGS`; the run folder is the one folder it made. */
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-run-'));
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, '--', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
    const dirs = readdirSync(out);
    assert.equal(dirs.length, 1, dirs.join(' '));
    const dir = join(out, dirs[0]!);
    return { code: r.status, out: r.stdout, err: r.stderr, dir, launch: JSON.parse(readFileSync(join(dir, 'launch.json'), 'utf8')) as Record<string, unknown> };
  };
  const sentence = {
    'no-torch': 'headroom: nothing was recorded: the workload never imported torch (is it a Python script? did it run under another interpreter?)',
    'no-cuda': 'headroom: nothing was recorded: the workload imported torch but never used CUDA (torch.cuda.is_available() was False, or the model stayed on the CPU)',
    'no-memory': 'headroom: nothing was recorded: the workload used CUDA but never held CUDA memory',
  } as const;
  const lastReason = (dir: string) => (readFileSync(join(dir, 'agent.log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { nothing_recorded?: string }).at(-1)?.nothing_recorded);

  it('a Python command without torch: the agent’s reason when it wrote its log, else that it never started', () => {
    const r = run(['python3', '-c', 'print(1)']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '1\n');
    if (existsSync(join(r.dir, 'agent.log.jsonl'))) {
      assert.equal(lastReason(r.dir), 'no-torch');
      assert.ok(r.err.includes(sentence['no-torch'] + '\n'), r.err);
      assert.equal(r.launch.nothing_recorded, 'no-torch');
    } else {
      assert.ok(r.err.includes(`agent never started in any Python process of the command`) && r.err.includes(r.dir), r.err);
    }
    assert.doesNotMatch(r.err, /see agent\.log\.jsonl|no snapshot was recorded \(/);
  });

  it('torch imported without CUDA, and CUDA without memory (the agent tests’ torch stand-in)', () => {
    const env = { PYTHONPATH: FAKE_TORCH };
    for (const [args, why] of [[['python3', '-c', 'import torch'], 'no-cuda'], [['python3', HARM, 'cuda-no-alloc'], 'no-memory']] as const) {
      const r = run([...args], env);
      assert.equal(r.code, 0, r.err);
      assert.equal(lastReason(r.dir), why, 'the agent wrote its reason');
      assert.ok(r.err.includes(sentence[why] + '\n'), r.err);
      assert.equal(r.launch.nothing_recorded, why);
    }
  });

  it('a command that is not Python: the agent never started, the run folder named, the workload’s exit code kept', () => {
    const r = run(['sh', '-c', 'exit 3']);
    assert.equal(r.code, 3);
    assert.ok(!existsSync(join(r.dir, 'agent.log.jsonl')));
    assert.ok(r.err.includes(`headroom: nothing was recorded: Headroom's agent never started in any Python process of the command (is the command Python? did it replace PYTHONPATH?); the run folder is ${r.dir}\n`), r.err);
    assert.equal(r.launch.nothing_recorded, 'no-agent');
    assert.equal(r.launch.exit_code, 3);
  });
});

describe('byte sizes', () => {
  it('parses budgets in binary and decimal units', () => {
    assert.equal(parseBytes('20GiB'), 20 * 2 ** 30);
    assert.equal(parseBytes('1.5 G'), 1.5 * 2 ** 30);
    assert.equal(parseBytes('512MiB'), 512 * 2 ** 20);
    assert.equal(parseBytes('20GB'), 20e9);
    assert.equal(parseBytes('800000000'), 8e8);
    for (const bad of ['', 'GiB', '1.2.3G', '-5G', '5 parsecs']) assert.equal(parseBytes(bad), undefined, bad);
  });

  it('a size typed on the command line needs its unit', () => {
    assert.equal(parseSizeWithUnit('150'), undefined);
    assert.equal(parseSizeWithUnit(' 1.5 '), undefined);
    assert.equal(parseSizeWithUnit('150B'), 150);
    assert.equal(parseSizeWithUnit('2KB'), 2000);
    assert.equal(parseSizeWithUnit('2KiB'), 2048);
    assert.equal(parseSizeWithUnit('3 TiB'), 3 * 2 ** 40);
    assert.equal(parseSizeWithUnit('3TB'), 3e12);
    assert.equal(parseSizeWithUnit('5 parsecs'), undefined);
  });

  it('formats within 0.5% and parses its own output back', () => {
    for (const n of [0, 1, 511, 512, 1023, 1024, 1536, 10 ** 6, 2 ** 30 - 1, 3 * 2 ** 30 + 12345, 9313.23 * 2 ** 30]) {
      const back = parseBytes(formatBytes(n).replace(' ', ''))!;
      assert.ok(Math.abs(back - n) <= Math.max(0.005 * n, 0), `${n} -> ${formatBytes(n)} -> ${back}`);
    }
  });
});
