// The README's install section as a new user runs it: the npm package packed from this checkout
// (scripts/npm-package.mjs), installed by npm into a temporary prefix in place of the section's
// `npm install -g torch-headroom`, then every other line of the section verbatim, in order, from
// an empty folder outside the clone, with a fresh Python venv first on PATH (for pip) and a
// stand-in `claude` that starts the MCP server it is given and checks its answer. Then the demo
// workspace's own lines, inside the folder `headroom demo` wrote.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { packNpm } from '../../scripts/npm-package.mjs';
import { ROOT } from './helpers';
import { INSTALL_SECTION, section, shellLines } from './readmeLines';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const INSTALL = 'npm install -g torch-headroom';
const lines = shellLines(section(README, INSTALL_SECTION));
const demoLines = shellLines(readFileSync(join(ROOT, 'demo', 'workspace', 'README.md'), 'utf8'));

// `claude mcp add NAME -- CMD…`: runs CMD… with an MCP initialize request; exits 0 on a server's answer.
const CLAUDE = `#!/bin/bash
[ "$1 $2" = "mcp add" ] || { echo "stand-in claude: only mcp add" >&2; exit 64; }
shift 3; [ "$1" = "--" ] && shift
req='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stand-in","version":"0"}}}'
answer=$(printf '%s\\n' "$req" | "$@" | head -n 1)
case "$answer" in *'"serverInfo"'*) exit 0;; *) echo "no MCP answer: $answer" >&2; exit 1;; esac
`;

describe('the README install section, from an empty folder', () => {
  let env: NodeJS.ProcessEnv = {};
  let tarball = '';
  let prefix = '';
  let home = '';
  const outputs = new Map<string, string>();

  before(() => {
    const tmp = mkdtempSync(join(tmpdir(), 'headroom-install-'));
    tarball = packNpm(join(tmp, 'pack'));
    prefix = join(tmp, 'prefix');
    home = join(tmp, 'home');
    const stubs = join(tmp, 'stubs');
    mkdirSync(home);
    mkdirSync(stubs);
    writeFileSync(join(stubs, 'claude'), CLAUDE);
    chmodSync(join(stubs, 'claude'), 0o755);
    const venv = join(tmp, 'venv');
    execFileSync('python3', ['-m', 'venv', venv]);
    // Outside the clone: no HEADROOM_* of the test's own, no npm_* of the npm that runs the tests.
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('HEADROOM_') && !k.toLowerCase().startsWith('npm_')),
    );
    env = {
      ...base,
      PATH: [join(prefix, 'bin'), join(venv, 'bin'), stubs, process.env.PATH].join(delimiter),
      npm_config_prefix: prefix,
      VIRTUAL_ENV: venv,
    };
  });

  it("installs the section's own way first: npm install -g (the packed tarball, into a prefix)", () => {
    assert.equal(lines[0]?.command, INSTALL, 'the section starts with the install line');
    const r = spawnSync('npm', ['install', '-g', '--no-audit', '--no-fund', tarball], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(execFileSync('bash', ['-c', 'command -v headroom'], { env, encoding: 'utf8' }), new RegExp(`^${prefix}/bin/headroom`));
  });

  const work = () => {
    const d = join(home, 'work');
    mkdirSync(d, { recursive: true });
    return d;
  };
  for (const l of lines.slice(1)) {
    it(`${l.command} exits ${l.status}`, () => {
      const r = spawnSync('bash', ['-c', l.text], { cwd: work(), env, encoding: 'utf8', maxBuffer: 1 << 26 });
      outputs.set(l.command, r.stdout);
      assert.equal(r.status, l.status, `${r.stdout}\n${r.stderr}`);
    });
  }

  it('the analyze output the README quotes is what analyze prints', () => {
    const real = outputs.get('headroom analyze headroom-demo/leaky_demo.pickle');
    assert.ok(real, 'analyze ran');
    const quoted = /prints:\n\n```text\n([\s\S]*?)```/.exec(README)?.[1];
    assert.ok(quoted, 'the README quotes analyze');
    // In order, each quoted line is a line of the real output; "…" stands for lines left out.
    let at = 0;
    const realLines = real.split('\n').map((x) => x.trimEnd());
    for (const q of quoted.split('\n').map((x) => x.trimEnd())) {
      if (q === '…' || q === '') continue;
      const i = realLines.indexOf(q, at);
      assert.ok(i >= 0, `quoted but not printed (in this order): ${q}\n--- real output:\n${real}`);
      at = i + 1;
    }
  });

  for (const l of demoLines) {
    it(`in headroom-demo/ (its README): ${l.command} exits ${l.status}`, () => {
      const r = spawnSync('bash', ['-c', l.text], { cwd: join(work(), 'headroom-demo'), env, encoding: 'utf8', maxBuffer: 1 << 26 });
      assert.equal(r.status, l.status, `${r.stdout}\n${r.stderr}`);
    });
  }
});
