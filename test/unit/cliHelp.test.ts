// The CLI's help, standard input and run folders, byte sizes, the "more lines" footer and diff.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatBytes, parseBytes, parseSizeWithUnit } from '../../extension/src/shared/format';
import { CLI, headroom } from './cliProcess';
import { fixture, ROOT } from './helpers';

describe('headroom CLI: help, sizes, the lines footer, diff and run', () => {
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
    assert.ok(
      lines.length <= 40 && lines.every((l) => l.length <= 100),
      `one screen: ${lines.length} lines, widest ${Math.max(...lines.map((l) => l.length))}`,
    );
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
    const py = spawnSync(
      process.execPath,
      [
        CLI,
        'run',
        '--out',
        mkdtempSync(join(tmpdir(), 'headroom-help-')),
        '--',
        'python3',
        '-c',
        'import sys; print(sys.argv[1:])',
        '--help',
      ],
      { encoding: 'utf8' },
    );
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
    const all = JSON.parse(headroom('analyze', f, '--json', '--top', '0').out) as {
      lines: { file: string; line: number; self_bytes: number }[];
    };
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
    assert.ok(
      r.err.includes(`${a} and ${b} share no source lines: they look like different scripts; the per-line diff compares nothing`),
      r.err,
    );
    const j = headroom('diff', a, b, '--json');
    assert.ok(JSON.parse(j.out).lines_total > 0, 'stdout stays JSON');
    assert.match(j.err, /share no source lines/);
    assert.doesNotMatch(headroom('diff', a, a).err, /share no source lines/);
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
