import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI } from './cliProcess';

// Issue 39, the errors that reached the user as stack traces: a folder lint cannot read (EACCES), a
// path past PATH_MAX, and a reader that closes the pipe early (`headroom check LOG --explain-oom | head -1`).
// Each through the built CLI as a real process: one typed line at most, never a stack trace.

const dir = mkdtempSync(join(tmpdir(), 'headroom-cost-cli-'));
// Readable by the unprivileged user the lint runs as under root (below).
chmodSync(dir, 0o755);
// `rm -rf` walks a tree deeper than PATH_MAX (it works relative to each folder); rmSync may not.
after(() => spawnSync('rm', ['-rf', dir]));

const LEAK =
  'import torch\n\ndef train(model, loader, opt):\n    total = 0\n    for x in loader:\n        loss = model(x)\n        total += loss\n';
const STACK = /\n\s+at |Error:|internal error/;

// Root reads through chmod 000: as root, the CLI runs as nobody (65534) so that EACCES happens.
const ROOT_USER = process.getuid?.() === 0;
const AS_USER = ROOT_USER ? { uid: 65534, gid: 65534 } : {};
// Nobody may not reach the checkout (a clone under a 0700 temporary folder): it runs a copy of the
// bundle and the parser it loads, in the readable folder above.
const LINT_CLI = ROOT_USER ? copyCli() : CLI;

function copyCli(): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const f of ['cli.js', 'tree-sitter.wasm', 'tree-sitter-python.wasm']) copyFileSync(join(dirname(CLI), f), join(bin, f));
  return join(bin, 'cli.js');
}

function lint(cwd: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [LINT_CLI, 'lint', ...args], { cwd, encoding: 'utf8', ...AS_USER });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('headroom lint: folders it cannot read', () => {
  it('a subfolder without permission is said, passed over, and the rest linted (exit 2)', () => {
    const root = join(dir, 'eacces');
    mkdirSync(join(root, 'locked'), { recursive: true });
    writeFileSync(join(root, 'train.py'), LEAK);
    writeFileSync(join(root, 'locked', 'hidden.py'), LEAK);
    chmodSync(join(root, 'locked'), 0);
    try {
      const r = lint(root, '.');
      assert.doesNotMatch(r.err, STACK);
      assert.match(r.err, /^headroom lint: locked: not read \(permission denied\)$/m);
      assert.match(r.out, /train\.py:7:9: error HR001/);
      assert.equal(r.code, 2);
    } finally {
      chmodSync(join(root, 'locked'), 0o755);
    }
  });

  it('a folder deeper than PATH_MAX is said and passed over (exit 2), the files above it linted', () => {
    const root = join(dir, 'deep');
    mkdirSync(root);
    writeFileSync(join(root, 'train.py'), LEAK);
    // 24 levels of 200 characters: 4,800 past the root, over Linux's PATH_MAX of 4,096. Made from inside
    // each level (relative names), as a program could; the path from the root is then too long to use.
    const made = spawnSync(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); for (let i = 0; i < 24; i++) { fs.mkdirSync('${'d'.repeat(200)}'); process.chdir('${'d'.repeat(200)}'); } fs.writeFileSync('deep.py', 'x = 1\\n');`,
      ],
      { cwd: root },
    );
    assert.equal(made.status, 0, String(made.stderr));
    const r = lint(root, '.');
    assert.doesNotMatch(r.err, STACK);
    assert.match(r.err, /^headroom lint: \S+: not read \(path too long\)$/m);
    assert.match(r.out, /^train\.py:7:9: error HR001/m);
    assert.equal(r.code, 2);
  });
});

describe('headroom check --explain-oom | head -1', () => {
  it('ends quietly when the reader closes the pipe: exit 0, nothing on stderr', async () => {
    const log = join(dir, 'oom.log');
    // 3,000 messages: megabytes of diagnoses, far past a pipe's buffer, so the CLI is still writing when the pipe closes.
    writeFileSync(log, 'Traceback (most recent call last):\nRuntimeError: cuda runtime error (2) : out of memory\n'.repeat(3000));
    const child = spawn(process.execPath, [CLI, 'check', log, '--explain-oom'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let first = '';
    child.stderr.on('data', (d) => void (err += d));
    child.stdout.on('data', (d) => {
      first += d;
      // `head -1`: one line read, then the pipe closed under the writer.
      if (first.includes('\n')) child.stdout.destroy();
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) => child.on('close', (c, s) => res([c, s])));
    assert.match(first, /^OOM: /);
    assert.equal(signal, null);
    assert.equal(err, '', 'nothing on stderr (no EPIPE stack trace)');
    assert.equal(code, 0);
  });
});
