import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { formatBytes, parseBytes } from '../../extension/src/core/format';
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
    const over = headroom('check', f.path, '--max-peak', String(peak - 1));
    assert.equal(over.code, 1);
    assert.equal(over.out.trim().split('\n').length, 1);
    assert.match(over.out, /^over budget: device 0 peaks at/);
    assert.equal(headroom('check', f.path, '--max-peak', String(peak)).code, 0);
    assert.equal(headroom('check', f.path, '--max-peak', '20GiB').code, 0);
    const res = headroom('check', f.path, '--max-peak', '20GiB', '--max-reserved', String(f.truth!.max_memory_reserved - 1));
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

  it('check --no-leak exits 1 on per-iteration growth with the line, 0 on a clean loop', () => {
    const leaks = join(ROOT, 'test', 'fixtures', 'leaks');
    const bad = headroom('check', join(leaks, 'leak_append.pickle'), '--no-leak');
    assert.equal(bad.code, 1);
    assert.match(bad.out, /^device 0: leak: live memory grows by .* per iteration/);
    assert.match(bad.out, /leaks\.py:\d+ \(train\) keeps \+/);
    const good = headroom('check', join(leaks, 'clean_train.pickle'), '--no-leak');
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /^within budget: device 0: no leak/);
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

  it('lint prints file:line:col: HRnnn, exits 1 on an error-level finding, and --select narrows it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-lint-'));
    writeFileSync(join(dir, 'train.py'), 'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n');
    writeFileSync(join(dir, 'ok.py'), 'import torch\nfrom torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)\n');
    writeFileSync(join(dir, 'notes.txt'), 'total += loss');
    const r = headroom('lint', dir);
    assert.equal(r.code, 1, r.err);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`^${join(dir, 'train.py').replace(/[.*+?^$()[\]\\]/g, '\\$&')}:5:5: HR001 \`total\` accumulates \`loss\``));
    const only = headroom('lint', dir, '--select', 'HR006');
    assert.deepEqual([only.code, only.out], [0, '']);
    const j = JSON.parse(headroom('lint', dir, '--json').out) as { files: number; findings: { rule: string; fixes: unknown[] }[] };
    assert.equal(j.files, 2);
    assert.deepEqual(j.findings.map((f) => [f.rule, f.fixes.length]), [['HR001', 2]]);
    const bad = headroom('lint', dir, '--select', 'HR999');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown rule HR999/);
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

  it('formats within 0.5% and parses its own output back', () => {
    for (const n of [0, 1, 511, 512, 1023, 1024, 1536, 10 ** 6, 2 ** 30 - 1, 3 * 2 ** 30 + 12345, 9313.23 * 2 ** 30]) {
      const back = parseBytes(formatBytes(n).replace(' ', ''))!;
      assert.ok(Math.abs(back - n) <= Math.max(0.005 * n, 0), `${n} -> ${formatBytes(n)} -> ${back}`);
    }
  });
});
