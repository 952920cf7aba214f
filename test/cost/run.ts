import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CostCase, CostFamily } from './family';

const ROOT = resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');

export interface CostRun {
  ms: number;
  /** Peak resident memory of the CLI's process, bytes. */
  rss: number;
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Every family: each `test/cost/*.family.ts` exports `families`. */
export async function allFamilies(): Promise<CostFamily[]> {
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.family.ts'))
    .sort();
  const mods = await Promise.all(files.map((f) => import(join(__dirname, f)) as Promise<{ families: CostFamily[] }>));
  return mods.flatMap((m) => m.families);
}

/** Runs one case through the CLI with a heap of 1 GiB (the issue's bound), timing it and reading its peak RSS. */
export function runCase(c: CostCase, dir: string, heapMb = 1024): CostRun {
  const rssFile = join(dir, '.rss');
  const stdin = c.stdin ? openSync(c.stdin, 'r') : 'ignore';
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, join(__dirname, 'measure.cjs'), CLI, ...c.argv], {
    cwd: dir,
    stdio: [stdin, 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, HEADROOM_COST_RSS: rssFile, NO_COLOR: '1' },
  });
  const ms = performance.now() - t0;
  if (typeof stdin === 'number') closeSync(stdin);
  const rss = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) * 1024 : Number.NaN;
  rmSync(rssFile, { force: true });
  return { ms, rss, status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** A C0/C1 control or bidi character the output must never carry raw (ESC, BEL, CSI, RLO, LRI…). */
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/**
 * What every run must end in: exit 0, 1 (a finding, a budget exceeded) or 2 with at most one line
 * on stderr, which is a typed "headroom: …" error (not "internal error"); never a crash, a signal or
 * a raw control character. Undefined when the run is fine, else why not.
 */
export function verdict(r: CostRun): string | undefined {
  if (r.signal) return `killed by ${r.signal}`;
  if (RAW_CONTROL.test(r.stdout) || RAW_CONTROL.test(r.stderr)) return 'a raw control or bidi character in the output';
  const err = r.stderr.trim();
  const oneLine = err === '' || (!err.includes('\n') && err.startsWith('headroom: ') && !err.startsWith('headroom: internal error'));
  if ((r.status === 0 || r.status === 1 || r.status === 2) && oneLine) return undefined;
  return `exit ${r.status}: ${err.slice(0, 400)}`;
}
