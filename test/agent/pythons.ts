// The interpreters the agent is tested under, and a way to run a workload as a real child process.
import { execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

export const DEBIAN_PY = '/usr/bin/python3';

/** Runs `check` with Debian's python3; when it fails, installs the Debian package once. */
function ensureDebian(check: string, pkg: string): void {
  try {
    execFileSync(DEBIAN_PY, ['-c', check], { stdio: 'ignore' });
    return;
  } catch {
    // install below
  }
  const root = process.getuid?.() === 0;
  const apt = (args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update', '-q']);
  apt(['install', '-y', '-q', '--no-install-recommends', pkg]);
}

/** Debian's python3 with python3-torch (CPU only, torch 1.13): installed once if missing. */
export const ensureDebianTorch = (): void => ensureDebian('import torch', 'python3-torch');

/** Debian's python3 able to make a virtual environment (python3-venv: ensurepip). */
export const ensureDebianVenv = (): void => ensureDebian('import ensurepip, venv', 'python3-venv');

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  /** With killAfterLine: ms from our SIGTERM to the process's end. */
  diedAfterKillMs?: number;
}

/**
 * Runs a child to its end. killAfterLine: SIGTERM it killDelayMs after it prints that line.
 * hangGuardMs: SIGKILL it past that (a hang guard, never a timing assertion).
 */
export function runAsync(
  python: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { hangGuardMs: number; killAfterLine?: string; killDelayMs?: number },
): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { env, cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killedAt: bigint | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), opts.hangGuardMs);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (opts.killAfterLine && killedAt === undefined && out.split('\n').includes(opts.killAfterLine)) {
        killedAt = 0n;
        setTimeout(() => {
          killedAt = process.hrtime.bigint();
          child.kill('SIGTERM');
        }, opts.killDelayMs ?? 0);
      }
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      const ms = killedAt ? Number(process.hrtime.bigint() - killedAt) / 1e6 : undefined;
      resolve({ code, signal, out, err, ...(ms !== undefined ? { diedAfterKillMs: ms } : {}) });
    });
  });
}
