// npm start: see demo/start.ts. The script is `exec node scripts/demo.mjs`: npm forwards SIGINT and
// SIGTERM to its child, which must be this process, not a shell that holds the signal until it
// exits (SIGINT to npm alone left everything running). This wrapper owns the demo's processes: the
// demo runs in its own process group, and it starts code-server in another (whose pid it writes to PIDFILE). Ctrl+C,
// SIGTERM and the terminal closing (SIGHUP) end both groups, and so does this process's exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDeps } from './ensure-deps.mjs';

ensureDeps();
const dir = mkdtempSync(join(tmpdir(), 'headroom-demo-'));
const pidfile = join(dir, 'code-server.pid');
const child = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  detached: true, // its own process group: one kill reaches the demo and whatever it forked
  env: { ...process.env, HEADROOM_DEMO_PIDFILE: pidfile },
});

/** Signals both process groups; a group already gone is fine. */
function killGroups(signal) {
  const groups = [child.pid];
  try {
    groups.push(Number(readFileSync(pidfile, 'utf8')));
  } catch {
    // code-server not started yet
  }
  for (const g of groups) {
    try {
      if (g > 0) process.kill(-g, signal);
    } catch {
      // gone
    }
  }
}

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  // SIGTERM first: the demo stops code-server in order; what is left after 5 s is killed.
  killGroups('SIGTERM');
  setTimeout(() => killGroups('SIGKILL'), 5000).unref();
  child.once('exit', () => {
    setTimeout(() => {
      killGroups('SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143);
    }, 300);
  });
}
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => stop(s));
// npm does not pass SIGTERM on: when it (or the shell) dies, this process is orphaned; stop then.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop('SIGTERM'), 500).unref();
// A closed terminal makes writes fail; that must not crash the clean-up.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
process.on('exit', () => {
  killGroups('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
child.on('exit', (code, signal) => {
  if (stopping) return;
  killGroups('SIGTERM');
  setTimeout(() => process.exit(code ?? (signal ? 1 : 0)), 300);
});
