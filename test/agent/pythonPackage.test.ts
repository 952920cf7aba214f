// The Python package torch-headroom as users get it: the wheel that `npm run build` makes, pip-
// installed into a fresh virtual environment of Debian's python3 (its CPU torch seen through
// --system-site-packages), then each entry point run as a real process on fakecuda's device:
// `python -m torch_headroom`, record() as a context manager and as a decorator, and the Lightning
// and transformers callbacks (their base classes stand-ins here: see standins/README.md).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildWheel } from '../../scripts/wheel.mjs';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { DEBIAN_PY, ensureDebianTorch, ensureDebianVenv } from './pythons';

const WORKLOADS = join(__dirname, 'workloads');
const STANDINS = join(__dirname, 'standins');
const AGENT = join(__dirname, '..', '..', 'extension', 'agent');
let venv = '';
const py = () => join(venv, 'bin', 'python');

function run(args: string[], extra: NodeJS.ProcessEnv = {}, pythonPath = WORKLOADS) {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: pythonPath, ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('HEADROOM_') && !(k in extra)) delete env[k];
  const cwd = mkdtempSync(join(tmpdir(), 'headroom-pkg-cwd-'));
  const r = spawnSync(extra.PY ?? py(), args, { encoding: 'utf8', env, cwd });
  return { code: r.status, out: r.stdout, err: r.stderr, cwd };
}
const json = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
const runsIn = (out: string) => readdirSync(out).sort();

describe('the torch-headroom wheel in a fresh virtual environment', () => {
  before(() => {
    ensureDebianTorch();
    ensureDebianVenv();
    const wheel = buildWheel(mkdtempSync(join(tmpdir(), 'headroom-wheel-')));
    venv = join(mkdtempSync(join(tmpdir(), 'headroom-venv-')), 'venv');
    execFileSync(DEBIAN_PY, ['-m', 'venv', '--system-site-packages', venv]);
    execFileSync(py(), ['-m', 'pip', 'install', '--no-index', '--quiet', wheel], { stdio: 'inherit' });
  });

  it('installs both packages and the shim, imports no framework, and answers --help', () => {
    const site = run([
      '-c',
      'import sys, torch_headroom, headroom_agent, os; print(os.path.dirname(torch_headroom.__file__)); print(sorted(m for m in ("torch", "lightning", "transformers") if m in sys.modules))',
    ]);
    assert.equal(site.code, 0, site.err);
    const [dir, imported] = site.out.trim().split('\n');
    assert.ok(dir!.startsWith(venv), `installed into the venv, not read from the tree: ${dir}`);
    assert.ok(existsSync(join(dir!, '_shim', 'sitecustomize.py')));
    assert.equal(imported, '[]');
    const help = run(['-m', 'torch_headroom', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^usage: python -m torch_headroom/);
    assert.ok(existsSync(join(venv, 'bin', 'torch-headroom')), 'the console script');
    const bad = run(['-m', 'torch_headroom', '--record', 'sometimes', 'x.py']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /record is window or full/);
  });

  it("python -m torch_headroom: the workload's own output and exit code, the run folder `headroom run` writes", () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-pkg-runs-'));
    const plain = run([join(WORKLOADS, 'observe.py'), 'code3', 'x'], { PY: DEBIAN_PY });
    const rec = run(['-m', 'torch_headroom', '--out', out, join(WORKLOADS, 'observe.py'), 'code3', 'x']);
    assert.equal(rec.code, 3);
    assert.equal(rec.out, plain.out);
    assert.equal(rec.err.replace(/^headroom: recording into .*\n/, ''), plain.err);

    const win = run(['-m', 'torch_headroom', '--out', out, '--sample-ms', '10', join(WORKLOADS, 'window.py'), '0.3']);
    assert.equal(win.code, 0, win.err);
    const dir = join(out, runsIn(out).find((d) => d.includes('-window-'))!);
    // The same files as the agent writes under the Node launcher, plus launch.json.
    const byShim = mkdtempSync(join(tmpdir(), 'headroom-pkg-shim-'));
    const shim = run(
      [join(WORKLOADS, 'window.py'), '0.3'],
      { HEADROOM_AGENT: '1', HEADROOM_RUNS_DIR: byShim, HEADROOM_RUN_ID: 'r', HEADROOM_SAMPLE_MS: '10', PY: DEBIAN_PY },
      `${AGENT}:${WORKLOADS}`,
    );
    assert.equal(shim.code, 0, shim.err);
    const names = (d: string) =>
      readdirSync(d)
        .map((f) => f.replace(/-\d+\.pickle$/, '-N.pickle'))
        .sort();
    assert.deepEqual(
      names(dir).filter((f) => f !== 'launch.json'),
      names(join(byShim, 'r')),
    );
    const launch = json(join(dir, 'launch.json'));
    assert.equal(launch.status, 'ended');
    assert.equal(launch.exit_code, 0);
    assert.deepEqual(launch.settings, { sampleMs: 10 });
    const r = readRun(dir);
    assert.equal(r.processes.length, 1);
    assert.equal(bestSnapshot(r.processes[0]!)?.kind, 'peak');
    assert.ok(r.processes[0]!.samples.length > 0);
  });

  it('record(): the block alone, then the recorder off and the folder ended', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-pkg-rec-'));
    const history = join(out, '..', `history-${Date.now()}`);
    const r = run([join(WORKLOADS, 'api.py'), 'record', out], { HEADROOM_TEST_HISTORY: history });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const seen = JSON.parse(r.out.split('\n')[0]!) as { path: string };
    assert.match(r.out, /\ndone\n$/);
    const launch = json(join(seen.path, 'launch.json'));
    assert.deepEqual([launch.status, launch.launcher, launch.exit_code], ['ended', 'python', null]);
    assert.equal(json(join(seen.path, 'meta.json')).status, 'ended');
    assert.ok(readdirSync(seen.path).some((f) => /^snapshot-exit-\d+\.pickle$/.test(f)));
    const p = readRun(seen.path).processes[0]!;
    const most = Math.max(...p.samples.map((s) => s.reserved));
    assert.ok(most >= 28 << 20 && most < 64 << 20, `samples stop with the block (largest reserved ${most})`);
    assert.equal(readFileSync(history, 'utf8').trim().split('\n').at(-1), 'None', 'the recorder was turned off');
  });

  it('record() as a decorator; a second recording in the process warns and joins the first', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-pkg-dec-'));
    const r = run([join(WORKLOADS, 'api.py'), 'decorator', out]);
    assert.equal(r.code, 0, r.err);
    const seen = JSON.parse(r.out.split('\n')[0]!) as { path: string; again: string; warned: string[] };
    assert.equal(seen.again, seen.path);
    assert.match(seen.warned.join('\n'), /one recording per process/);
    assert.deepEqual(runsIn(out).length, 1);
  });

  it('the Lightning callback: the run named at creation, a process launched before setup joins it', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-pkg-pl-'));
    const r = run([join(WORKLOADS, 'api.py'), 'lightning', out], {}, `${WORKLOADS}:${STANDINS}`);
    assert.equal(r.code, 0, r.err);
    const seen = JSON.parse(r.out.split('\n')[0]!) as { path: string; child: [number, string] };
    assert.deepEqual(seen.child, [0, 'child done']);
    const base = seen.path.split('/').at(-1)!;
    const folders = runsIn(out);
    assert.deepEqual(
      folders.map((f) => f.replace(/-pid\d+$/, '-pidN')),
      [base, `${base}-pidN`],
    );
    assert.equal(json(join(seen.path, 'launch.json')).status, 'ended');
    assert.ok(existsSync(join(out, folders[1]!, 'meta.json')), 'the child wrote its own folder of the run');
  });

  it('the transformers callback: recording from its creation to the end of training', () => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-pkg-hf-'));
    const r = run([join(WORKLOADS, 'api.py'), 'transformers', out], {}, `${WORKLOADS}:${STANDINS}`);
    assert.equal(r.code, 0, r.err);
    const seen = JSON.parse(r.out.split('\n')[0]!) as { path: string };
    assert.equal(json(join(seen.path, 'launch.json')).status, 'ended');
    assert.ok(bestSnapshot(readRun(seen.path).processes[0]!));
  });
});
