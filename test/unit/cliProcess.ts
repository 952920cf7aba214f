// The built `headroom` CLI as a real process, for the CLI's test files (the runner builds dist/ first;
// cli.test.ts builds it again, so that a file run alone never tests a stale bundle).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers';

export const CLI = join(ROOT, 'dist', 'cli.js');

/** Runs the built `headroom` CLI as a real process. */
export function headroom(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
