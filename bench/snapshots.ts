import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The benchmark's snapshot: HEADROOM_BENCH_SNAPSHOT, else the largest real capture in bench/data
 * (with at least `minEvents` events), else a synthetic one of that size, made from `src` (default:
 * a real H200 capture) into `out` (default: bench/data).
 */
export function benchSnapshot(root: string, minEvents = 400_000, src?: string, out?: string): { path: string; what: string } {
  const real = realCapture(root, minEvents);
  if (real) return real;
  const data = join(root, 'bench', 'data');
  const synth = out ?? join(data, `synth_big_${minEvents}.pickle`);
  const from = src ?? join(root, 'test', 'fixtures', 'snapshots', 'ring_overflow.pickle');
  if (!existsSync(synth)) {
    mkdirSync(dirname(synth), { recursive: true });
    execFileSync('python3', [join(root, 'bench', 'synth_big.py'), from, synth, String(minEvents)]);
  }
  return {
    path: synth,
    what: `synthetic: a real H200 trace (${from.split('/').pop()}) repeated to ${minEvents.toLocaleString('en-US')} events, addresses and times shifted and frames lists written anew per copy (bench/synth_big.py)`,
  };
}

/** HEADROOM_BENCH_SNAPSHOT, else the largest real capture in bench/data with at least `minEvents` events. */
export function realCapture(root: string, minEvents = 400_000): { path: string; what: string } | undefined {
  if (process.env.HEADROOM_BENCH_SNAPSHOT)
    return { path: process.env.HEADROOM_BENCH_SNAPSHOT, what: `HEADROOM_BENCH_SNAPSHOT (${process.env.HEADROOM_BENCH_SNAPSHOT})` };
  // The largest real capture at hand (docs/testing.md, "Benchmarks", says how to make them).
  const data = join(root, 'bench', 'data');
  const events = (f: string) => {
    try {
      return (JSON.parse(readFileSync(join(data, f.replace(/\.pickle$/, '.truth.json')), 'utf8')) as { events?: number }).events;
    } catch {
      return undefined;
    }
  };
  const big = (f: string) => {
    const e = events(f);
    return e === undefined || e >= minEvents;
  };
  const captures = existsSync(data) ? readdirSync(data).filter((f) => /^big_trace.*\.pickle$/.test(f) && big(f)) : [];
  captures.sort((a, b) => statSync(join(data, b)).size - statSync(join(data, a)).size);
  if (captures.length) return { path: join(data, captures[0]!), what: `real capture (bench/data/${captures[0]})` };
  return undefined;
}
