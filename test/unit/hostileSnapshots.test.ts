import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from './helpers';

/**
 * The hostile snapshot corpus (test/hostile/gen_snapshots.py) through the built CLI, each input in
 * its own process with a 1 GB heap, as a user on a small machine would run it: every input ends
 * with exit 0 or exit 2 and one typed line (naming the limit when one applies), in bounded time and
 * memory, with no raw control character on the terminal.
 */
const CLI = join(ROOT, 'dist', 'cli.js');
const HANG_MS = 60_000;
/** Peak RSS allowed for any input: a 1 GB heap plus typed arrays and Node itself. */
const MAX_RSS = 1.5 * 2 ** 30;

interface Case {
  expect: string;
  args: string[];
  note: string;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  ms: number;
  rss: number;
}

const dir = mkdtempSync(join(tmpdir(), 'headroom-hostile-'));
// Records the child's peak RSS at exit (the CLI itself knows nothing of it).
const probe = join(dir, 'rss-probe.cjs');

function headroom(file: string, args: string[]): Promise<Run> {
  const rssFile = `${file}.rss`;
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=1024', '-r', probe, CLI, 'analyze', file, ...args], {
      env: { ...process.env, HEADROOM_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      let rss = 0;
      try {
        rss = Number(readFileSync(rssFile, 'utf8'));
      } catch {
        // no file: the process died before exit handlers ran (the code/signal checks report it)
      }
      resolve({
        code,
        signal,
        out: Buffer.concat(out).toString('utf8'),
        err: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - t0,
        rss,
      });
    });
  });
}

/** Control characters other than \n (C0, DEL, C1): none may reach the terminal raw. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

describe('hostile snapshot corpus through the CLI', () => {
  let manifest: Record<string, Case> = {};

  before(() => {
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
    writeFileSync(
      probe,
      `process.on('exit', () => require('fs').writeFileSync(process.env.HEADROOM_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n`,
    );
    const g = spawnSync('python3', [join(ROOT, 'test', 'hostile', 'gen_snapshots.py'), dir], { encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, Case>;
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every input ends cleanly: exit 0, or exit 2 with one typed line naming the limit', async () => {
    const problems: string[] = [];
    const names = Object.keys(manifest);
    assert.ok(names.length >= 50, `only ${names.length} inputs generated`);
    for (const name of names) {
      const c = manifest[name]!;
      const r = await headroom(join(dir, name), c.args);
      const shown = JSON.stringify(name);
      const errLines = r.err.split('\n').filter((l) => l !== '');
      const fail = (why: string) =>
        problems.push(`${shown}: ${why} (exit ${r.code}, signal ${r.signal}, ${r.ms} ms, stderr ${JSON.stringify(r.err.slice(0, 300))})`);
      if (r.signal !== null || r.code === null) {
        fail('killed (crash or hang)');
        continue;
      }
      if (RAW_CONTROL.test(r.out) || RAW_CONTROL.test(r.err)) fail('raw control character in the output');
      if (/internal error/.test(r.err)) fail('internal error');
      if (r.rss > MAX_RSS) fail(`peak RSS ${(r.rss / 2 ** 20).toFixed(0)} MiB`);
      if (c.expect === 'ok') {
        if (r.code !== 0) fail('expected exit 0');
        continue;
      }
      if (r.code !== 2) fail('expected exit 2');
      if (errLines.length !== 1) fail(`expected one line on stderr, got ${errLines.length}`);
      if (c.expect === 'usage') {
        if (!/^headroom: --limit /.test(r.err)) fail('expected a usage error about --limit');
      } else if (c.expect.startsWith('limit:')) {
        const flag = c.expect.slice('limit:'.length);
        if (!r.err.includes(`(limit ${flag};`) || !r.err.includes(`--limit ${flag}=`))
          fail(`expected the ${flag} limit, named with its flag`);
      } else if (!/^headroom: cannot analyze: /.test(r.err)) {
        fail('expected a typed error');
      }
    }
    assert.deepEqual(problems, []);
  });

  it('a sparse memo costs what it holds (LONG_BINPUT every 16384 indices)', async () => {
    const r = await headroom(join(dir, 'sparse_memo.pickle'), []);
    assert.equal(r.code, 0, r.err);
    // Before: 96 KiB per index touched, 1.84 GB for the 122 KB file (24,000 here: 2.2 GB).
    assert.ok(r.rss > 0 && r.rss < 300 * 2 ** 20, `peak RSS ${(r.rss / 2 ** 20).toFixed(0)} MiB`);
  });
});
