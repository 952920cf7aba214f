import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const OWN_SNAPSHOTS = join(ROOT, 'test', 'fixtures', 'snapshots');
/** The project's shared captures, copied into the repository: a clone needs nothing beside it. */
export const SHARED_SNAPSHOTS = join(OWN_SNAPSHOTS, 'shared');

export interface Fixture {
  name: string;
  path: string;
  truth?: Truth;
}

export interface Truth {
  requested_bytes_peak: number;
  requested_bytes_current: number;
  max_memory_allocated: number;
  memory_allocated: number;
  memory_reserved: number;
  max_memory_reserved: number;
  inactive_split_bytes: number;
  num_ooms: number;
  oom?: { message?: string; alloc?: number; device_free?: number };
  memory_viz_folded?: string;
  [k: string]: unknown;
}

/** Every real snapshot: the shared captures and ours, each with its truth file when there is one. */
export function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of [SHARED_SNAPSHOTS, OWN_SNAPSHOTS]) {
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.pickle')) continue;
      const path = join(dir, f);
      const truthPath = path.replace(/\.pickle$/, '.truth.json');
      const truth = existsSync(truthPath) ? (JSON.parse(readFileSync(truthPath, 'utf8')) as Truth) : undefined;
      out.push({ name: f.replace(/\.pickle$/, ''), path, ...(truth ? { truth } : {}) });
    }
  }
  return out;
}

export function fixture(name: string): Fixture {
  const f = fixtures().find((x) => x.name === name);
  if (!f) throw new Error(`no fixture ${name}`);
  return f;
}

/** Runs python3 on a script from test/reference (a real interpreter, the standard library only). */
export function python(script: string, args: string[], input?: string): string {
  return execFileSync('python3', [join(ROOT, 'test', 'reference', script), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    ...(input !== undefined ? { input } : {}),
  });
}

export function pythonBytes(code: string, args: string[] = []): Buffer {
  return execFileSync('python3', ['-c', code, ...args], { maxBuffer: 1 << 30 });
}

export { dirname };
