import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The benchmark's snapshot: HEADROOM_BENCH_SNAPSHOT, else the largest real capture in bench/data, else a synthetic one. */
export function benchSnapshot(root: string): { path: string; what: string } {
  if (process.env.HEADROOM_BENCH_SNAPSHOT) return { path: process.env.HEADROOM_BENCH_SNAPSHOT, what: 'HEADROOM_BENCH_SNAPSHOT' };
  // The largest real capture at hand (see README: "Benchmarks" for how to make them).
  const data = join(root, 'bench', 'data');
  const captures = existsSync(data) ? readdirSync(data).filter((f) => /^big_trace.*\.pickle$/.test(f)) : [];
  captures.sort((a, b) => statSync(join(data, b)).size - statSync(join(data, a)).size);
  if (captures.length) return { path: join(data, captures[0]!), what: `real capture (bench/data/${captures[0]})` };
  const synth = join(data, 'synth_big.pickle');
  if (!existsSync(synth)) {
    mkdirSync(data, { recursive: true });
    const src = join(root, 'test', 'fixtures', 'snapshots', 'ring_overflow.pickle');
    execFileSync('python3', [join(root, 'bench', 'synth_big.py'), src, synth, '400000']);
  }
  return { path: synth, what: 'synthetic: a real trace repeated to 400k events (bench/synth_big.py)' };
}
