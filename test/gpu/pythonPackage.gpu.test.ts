// torch-headroom's three entry points on real training, on the GPU host: `python -m torch_headroom`
// on a nanoGPT-style AMP loop, the Lightning callback in a pytorch_lightning Trainer, the transformers
// callback in an HF Trainer (GPT-2 config, bf16, checkpointing). Each runs with and without
// Headroom: the same loss and weights bit for bit (deterministic kernels), a complete run folder,
// and PyTorch's own peaks equal to the run folder's. The wheel is installed into a fresh venv that
// sees the host's torch, Lightning and transformers. CI has no GPU and skips it; on the host:
//   HEADROOM_WHEEL=$(ls $PWD/.carry/wheel/*.whl) HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_ROOT=$PWD /tmp/node --test .carry/pythonPackage.gpu.test.js
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { cudaAvailable, NO_GPU } from './cuda';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const WORK = join(ROOT, 'test', 'gpu', 'capture', 'package');
const SKIP = cudaAvailable() ? false : NO_GPU;

interface Result {
  loss: string;
  checksum: string;
  max_allocated: number;
  max_reserved: number;
  path: string | null;
}

let python = '';

function wheel(): string {
  if (process.env.HEADROOM_WHEEL) return process.env.HEADROOM_WHEEL;
  const dist = join(ROOT, 'dist');
  const found = readdirSync(dist).find((f) => /^torch_headroom-.*\.whl$/.test(f));
  if (!found) throw new Error('no wheel in dist/: npm run build');
  return join(dist, found);
}

function train(args: string[]): { result: Result; err: string } {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('HEADROOM_')) delete env[k];
  const r = spawnSync(python, args, { cwd: WORK, env, encoding: 'utf8', timeout: 540_000, maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, `${args.join(' ')} failed:\n${r.stderr.slice(-3000)}`);
  const last = r.stdout.trim().split('\n').at(-1)!;
  return { result: JSON.parse(last) as Result, err: r.stderr };
}

function checkFolder(dir: string, result: Result, t: { diagnostic: (s: string) => void }) {
  const launch = JSON.parse(readFileSync(join(dir, 'launch.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(launch.status, 'ended');
  const run = readRun(dir);
  const p = run.processes.find((q) => q.dir === dir);
  assert.ok(p, `the main process's folder in ${readdirSync(join(dir, '..')).join(', ')}`);
  assert.equal(p.meta?.status, 'ended');
  assert.ok(
    p.snapshots.some((s) => s.kind === 'peak'),
    `a peak snapshot: ${p.snapshots.map((s) => s.kind)}`,
  );
  assert.ok(
    p.snapshots.some((s) => s.kind === 'exit'),
    'an exit snapshot',
  );
  assert.ok(bestSnapshot(p));
  const peak = Math.max(...p.samples.map((s) => s.max_allocated));
  const reserved = Math.max(...p.samples.map((s) => s.max_reserved));
  t.diagnostic(`PyTorch: max_allocated ${result.max_allocated}, max_reserved ${result.max_reserved}; run folder: ${peak}, ${reserved}`);
  assert.equal(peak, result.max_allocated, "the run folder's peak is PyTorch's");
  assert.equal(reserved, result.max_reserved);
  const cli = spawnSync(process.execPath, [CLI, 'analyze', dir, '--top', '3'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^Peak /m);
}

describe('torch-headroom on real training', { skip: SKIP }, () => {
  before(() => {
    const venv = join(mkdtempSync(join(tmpdir(), 'headroom-gpu-venv-')), 'venv');
    execFileSync('python3', ['-m', 'venv', venv]);
    python = join(venv, 'bin', 'python');
    // The host's torch, Lightning and transformers may live in another environment than python3's
    // base (--system-site-packages would miss them): a .pth file makes them visible, the wheel's
    // own install stays the venv's.
    const hostSites = execFileSync(
      'python3',
      ['-c', 'import site, sys; print("\\n".join(p for p in sys.path if p.endswith("-packages")))'],
      { encoding: 'utf8' },
    );
    const venvSite = execFileSync(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).trim();
    writeFileSync(join(venvSite, 'zz-host-packages.pth'), hostSites);
    execFileSync(python, ['-m', 'pip', 'install', '--no-index', '--quiet', wheel()], { stdio: 'inherit' });
  });

  it('python -m torch_headroom: a nanoGPT-style AMP loop', (t) => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-pkg-'));
    const off = train(['plain_loop.py']).result;
    const on = train(['-m', 'torch_headroom', '--out', out, 'plain_loop.py']).result;
    assert.deepEqual([on.loss, on.checksum], [off.loss, off.checksum]);
    const runs = readdirSync(out);
    assert.equal(runs.length, 1, runs.join(', '));
    checkFolder(join(out, runs[0]!), on, t);
  });

  for (const [label, script] of [
    ['the Lightning callback (pytorch_lightning, bf16-mixed)', 'lightning_fit.py'],
    ['the transformers callback (HF Trainer, GPT-2, bf16, checkpointing)', 'hf_train.py'],
  ] as const) {
    it(label, (t) => {
      const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-pkg-'));
      const off = train([script, 'off', out]).result;
      const on = train([script, 'on', out]).result;
      assert.deepEqual([on.loss, on.checksum], [off.loss, off.checksum]);
      assert.ok(on.path && existsSync(on.path));
      checkFolder(on.path, on, t);
    });
  }
});
