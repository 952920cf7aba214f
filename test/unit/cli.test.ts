import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CLI, headroom } from './cliProcess';
import { fixture, ROOT } from './helpers';

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
      assert.ok(
        a.self_bytes > b.self_bytes || (a.self_bytes === b.self_bytes && a.inclusive_bytes >= b.inclusive_bytes),
        'sorted by self, then inclusive',
      );
    }
    for (const b of j.buckets) assert.ok(['before_recording', 'backward', 'no_stack', 'library'].includes(b.kind));
    const live =
      j.lines.reduce((n: number, l: { self_bytes: number }) => n + l.self_bytes, 0) +
      j.buckets.reduce((n: number, b: { bytes: number }) => n + b.bytes, 0);
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
    writeFileSync(
      log,
      `step 12 loss 2.31\nTraceback (most recent call last):\ntorch.OutOfMemoryError: ${(f.truth as unknown as { oom: { message: string } }).oom.message}\n`,
    );
    const text = headroom('check', log, '--explain-oom');
    assert.equal(text.code, 0);
    assert.match(text.out, /^OOM: cap — /);
    writeFileSync(log, 'nothing failed\n');
    assert.match(headroom('check', log, '--explain-oom').out, /no CUDA out-of-memory message/);
    // With a budget as well, the budget still decides the exit code.
    assert.equal(headroom('check', f.path, '--explain-oom', '--max-peak', '1KiB').code, 1);
  });

  it('check --explain-oom --json reads standard input: one entry per message, in order, with the figures read', () => {
    const cached =
      'RuntimeError: CUDA out of memory. Tried to allocate 1.72 GiB (GPU 0; 10.76 GiB total capacity; 4.01 GiB already allocated; 356.00 MiB free; 5.54 GiB cached)';
    const input = `[rank0]: ${cached}\nretrying\nRuntimeError: CUDA error: out of memory\n`;
    const r = spawnSync(process.execPath, [CLI, 'check', '-', '--explain-oom', '--json'], { input, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      ooms: {
        class: string;
        figures: Record<string, number>;
        reason: string;
        remedies: { id: string; title: string; change: string; effect: string }[];
        line: number;
      }[];
    };
    assert.deepEqual(
      j.ooms.map((o) => [o.class, o.line]),
      [
        ['fragmentation', 1],
        ['unknown', 3],
      ],
    );
    assert.deepEqual(j.ooms[0]!.figures, {
      gpu: 0,
      tried: Math.round(1.72 * 2 ** 30),
      total: Math.round(10.76 * 2 ** 30),
      allocated: Math.round(4.01 * 2 ** 30),
      free: 356 * 2 ** 20,
      cached: Math.round(5.54 * 2 ** 30),
    });
    assert.ok(j.ooms[0]!.remedies.every((x) => x.id && x.title && x.change && x.effect));
    assert.equal(headroom('check', '-', '--json').code, 2, '--json goes with --explain-oom');
  });

  it('check LOG --explain-oom --run RUN: the run’s snapshot of the same OOM is the evidence', () => {
    const run = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
    const t = JSON.parse(readFileSync(join(run, 'truth.json'), 'utf8')) as { message: string };
    const log = join(mkdtempSync(join(tmpdir(), 'headroom-cli-')), 'job.log');
    writeFileSync(log, `torch.OutOfMemoryError: ${t.message}\n`);
    const alone = JSON.parse(headroom('check', log, '--explain-oom', '--json').out) as { ooms: { class: string; evidence?: string }[] };
    const withRun = JSON.parse(headroom('check', log, '--explain-oom', '--json', '--run', run).out) as {
      ooms: { class: string; evidence?: string; derived: { pools?: unknown[] } }[];
    };
    assert.equal(alone.ooms[0]!.evidence, undefined);
    assert.match(withRun.ooms[0]!.evidence!, /snapshot-oom-1\.pickle/);
    assert.ok(Array.isArray(withRun.ooms[0]!.derived.pools), 'the snapshot’s pools');
    assert.equal(withRun.ooms[0]!.class, 'non-pytorch');
    // Another OOM (other figures) is not this run's: the message's own reading stays.
    writeFileSync(log, `torch.OutOfMemoryError: ${t.message.replace('1024.00 MiB', '512.00 MiB')}\n`);
    assert.equal(
      (JSON.parse(headroom('check', log, '--explain-oom', '--json', '--run', run).out) as { ooms: { evidence?: string }[] }).ooms[0]!
        .evidence,
      undefined,
    );
  });

  it('whatif --json: the recorded peaks and one prediction per --alloc-conf, in order; a misspelled option is refused', () => {
    const snap = join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.pickle');
    // frag_oom.py capped PyTorch at 1,636 MiB; K=V is read as K:V.
    const r = headroom(
      'whatif',
      snap,
      '--alloc-conf',
      'max_split_size_mb=64',
      '--alloc-conf',
      'roundup_power2_divisions:4',
      '--cap-gib',
      String(1636 / 1024),
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as {
      limit_is_cap: boolean;
      recorded: Record<string, number>;
      predicted: {
        alloc_conf: string;
        reserved_peak_bytes: number;
        allocated_peak_bytes: number;
        cached_at_peak_bytes: number;
        ooms: unknown[];
      }[];
    };
    assert.equal(j.limit_is_cap, true);
    assert.ok(j.predicted.every((p) => p.cached_at_peak_bytes >= 0 && p.cached_at_peak_bytes <= p.reserved_peak_bytes));
    const t = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.truth.json'), 'utf8')) as {
      max_memory_allocated: number;
      max_memory_reserved: number;
    };
    assert.equal(j.recorded.allocated_peak_bytes, t.max_memory_allocated);
    assert.equal(j.recorded.reserved_peak_bytes, t.max_memory_reserved);
    assert.deepEqual(
      j.predicted.map((p) => p.alloc_conf),
      ['max_split_size_mb=64', 'roundup_power2_divisions:4'],
    );
    assert.deepEqual(j.predicted[0]!.ooms, []);
    assert.match(
      headroom('whatif', snap, '--alloc-conf', 'max_split_size_mb:64', '--cap-gib', '1.59765625').out,
      /the recorded OOM at event #\d+ does not happen/,
    );
    // Without a limit, the recorded OOM's: a memory fraction refused it, and the range it lies in is said.
    assert.match(
      headroom('whatif', snap, '--alloc-conf', 'expandable_segments:True').out,
      /a memory fraction refused it\); the cap lies between 1\.50 GiB and/,
    );
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
    assert.match(
      bad.out,
      /leaks\.py:\d+ \(train\) keeps (1 tensor of [\d.]+ \S+ per iteration|\d+ tensors of [\d.]+ \S+ per iteration = )/,
    );
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
    writeFileSync(
      join(dir, 'train.py'),
      'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n',
    );
    writeFileSync(
      join(dir, 'ok.py'),
      'import torch\nfrom torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)\n',
    );
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
    assert.deepEqual(
      j.findings.map((f) => [f.rule, f.fixes.length]),
      [
        ['HR004', 1],
        ['HR001', 2],
      ],
    );
    const bad = headroom('lint', dir, '--select', 'HR999');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown rule HR999/);
  });
});
