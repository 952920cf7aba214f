// `npm start`, exactly as the README says, in a real terminal (tmux): it prints the URL, and
// Ctrl+C, SIGTERM or the terminal closing leaves no process of the demo and the port free.
// `npm start -- --screenshot FILE` writes a PNG.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { waitFor } from './waitFor';

const ROOT = resolve(__dirname, '..', '..');
const DEMO_HOME = join(ROOT, '.headroom-demo');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Debian's tmux when missing, the way the harness installs chromium. */
function ensureTmux(): void {
  if (spawnSync('tmux', ['-V']).status === 0) return;
  const root = process.getuid?.() === 0;
  const apt = (args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update', '-q']);
  apt(['install', '-y', '-q', '--no-install-recommends', 'tmux']);
}

interface Proc {
  pid: number;
  ppid: number;
  cmd: string;
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        if (/\) Z /.test(stat)) return []; // a zombie is already dead
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return [{ pid: Number(d), ppid, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') }];
      } catch {
        return [];
      }
    });
}

/** The demo's processes: everything under the terminal's shell, and whatever serves DEMO_HOME. */
function demoProcesses(shell: number): Proc[] {
  const all = processes();
  const mine = new Set([shell]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!mine.has(p.pid) && mine.has(p.ppid)) mine.add(p.pid), (grew = true);
  }
  return all.filter((p) => (mine.has(p.pid) && p.pid !== shell) || p.cmd.includes(DEMO_HOME));
}

const portOpen = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), res(true)));
    s.once('error', () => res(false));
  });

// A tmux server of our own (its socket), apart from any the user runs.
const SOCKET = `headroom-demo-${process.pid}`;
const SESSION = 'demo';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: 'pipe' });

/** Starts `npm start` in a fresh tmux terminal; returns the shell's pid and the demo's port. */
async function startDemo(): Promise<{ shell: number; port: number; running: Proc[] }> {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  // A server that just lost its last session is still exiting for a moment: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      tmux('new-session', '-d', '-s', SESSION, '-x', '220', '-y', '50', '-c', ROOT);
      break;
    } catch (e) {
      if (attempt >= 10) throw e;
      await sleep(300);
    }
  }
  const shell = Number(tmux('display-message', '-p', '-t', SESSION, '#{pane_pid}').trim());
  tmux('send-keys', '-t', SESSION, 'npm start', 'Enter');
  // The first run installs code-server and chromium: minutes.
  const url = /Headroom demo: open http:\/\/127\.0\.0\.1:(\d+)\/\?folder=/;
  const screen = await waitFor(
    'npm start to print the demo URL',
    () => {
      const text = tmux('capture-pane', '-p', '-J', '-t', SESSION, '-S', '-200');
      if (!url.test(text) && /demo failed|npm error/.test(text)) throw new Error(`npm start failed:\n${text}`);
      return text;
    },
    (text) => url.test(text),
    { guardMs: 900_000, everyMs: 500 },
  );
  return { shell, port: Number(url.exec(screen)![1]), running: demoProcesses(shell) };
}

/** Waits for every process of the demo to end and its port to close. */
async function assertAllGone(shell: number, running: Proc[], port: number, how: string): Promise<void> {
  const last = await waitFor(
    `every process of the demo to end and port ${port} to close after ${how}`,
    async () => {
      const alive = new Map(processes().map((p) => [p.pid, p.cmd]));
      const left = [
        ...running.filter((p) => alive.get(p.pid) === p.cmd),
        ...demoProcesses(shell).filter((p) => !running.some((r) => r.pid === p.pid)),
      ];
      return { left, served: !left.length && (await portOpen(port)) };
    },
    (r) => !r.left.length && !r.served,
    // Past the guard, what is left is ended below before the test fails.
    { guardMs: 20_000, everyMs: 250, returnLast: true },
  );
  if (!last.left.length && !last.served) return;
  const { left } = last;
  // What is left is ours: end it, so that the next case starts clean, then fail.
  for (const p of left) spawnSync('kill', ['-KILL', String(p.pid)]);
  assert.deepEqual(
    left.map((p) => `${p.pid} ${p.cmd.slice(0, 160)}`),
    [],
    `processes of the demo left after ${how}`,
  );
  assert.equal(await portOpen(port), false, `port ${port} still served after ${how}`);
}

describe('npm start in a real terminal', { timeout: 40 * 60_000 }, () => {
  ensureTmux();
  after(() => void spawnSync('tmux', ['-L', SOCKET, 'kill-server']));

  it('Ctrl+C stops code-server and every process the demo started', async () => {
    const { shell, port, running } = await startDemo();
    assert.ok(
      running.some((p) => p.cmd.includes('code-server')),
      'code-server runs while the demo does',
    );
    assert.equal(await portOpen(port), true);
    tmux('send-keys', '-t', SESSION, 'C-c');
    await assertAllGone(shell, running, port, 'Ctrl+C');
  });

  it('SIGTERM to npm start stops them too', async () => {
    const { shell, port, running } = await startDemo();
    const npm = running.find((p) => p.ppid === shell);
    assert.ok(npm, 'npm runs in the terminal');
    process.kill(npm.pid, 'SIGTERM');
    await assertAllGone(shell, running, port, 'SIGTERM');
  });

  it("SIGINT to npm start alone (not its group, as a terminal's Ctrl+C sends it) stops them too", async () => {
    const { shell, port, running } = await startDemo();
    const npm = running.find((p) => p.ppid === shell);
    assert.ok(npm, 'npm runs in the terminal');
    process.kill(npm.pid, 'SIGINT');
    await assertAllGone(shell, running, port, 'SIGINT to npm alone');
  });

  it('closing the terminal (SIGHUP) stops them too', async () => {
    const { shell, port, running } = await startDemo();
    tmux('kill-session', '-t', SESSION);
    await assertAllGone(shell, running, port, 'the terminal closing');
  });

  it('npm start -- --screenshot FILE writes a PNG of the annotated script', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'headroom-shot-')), 'demo.png');
    const r = spawnSync('npm', ['start', '--', '--screenshot', file], { cwd: ROOT, encoding: 'utf8', timeout: 15 * 60_000 });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.ok(existsSync(file), r.stdout);
    assert.deepEqual([...readFileSync(file).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
    assert.ok(statSync(file).size > 20_000, 'more than a blank page');
  });
});
