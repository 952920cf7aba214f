// npm run bench (bench:load): loads and indexes snapshots of 1M, 4M and 10M events
// (HEADROOM_BENCH_SIZES) and compares with CPython's pickle.load of the same file and with the
// previous reader (bench/baseline.ts), all measured in this run on this machine. Each measurement
// is a fresh process; the runs are interleaved and the median of RUNS reported, with the range.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BASE_REF, bundleChild } from './baseline';
import { benchSnapshot } from './snapshots';

const ROOT = resolve(__dirname, '..');
const RUNS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);
const SIZES = (process.env.HEADROOM_BENCH_SIZES ?? '1000000,4000000,10000000').split(',').map(Number);

type Run = { loadMs: number; totalMs: number; firstViewMs?: number; maxRss: number; rssBefore: number; events?: number };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[], f: (x: number) => string): string => (xs.length > 1 ? ` (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : '');
const s1 = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const x2 = (r: number): string => `${r.toFixed(2)}×`;

function runJson(cmd: string, args: string[]): Run {
  return JSON.parse(execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20 })) as Run;
}

function main(): void {
  const out = join(ROOT, 'out', 'bench');
  const ours = bundleChild(ROOT, 'load.child.ts', join(out, 'load.child.js'))!;
  const prev = bundleChild(ROOT, 'load.child.ts', join(out, 'load.prev.js'), BASE_REF);
  console.log(
    `load + index against CPython's pickle.load and the previous reader (${prev ? BASE_REF : `${BASE_REF}: not in this clone`}),`,
  );
  console.log(`${RUNS} interleaved runs per figure, median (range); RSS growth as a multiple of the file\n`);
  for (const n of SIZES) {
    const { path, what } = benchSnapshot(ROOT, n);
    const size = statSync(path).size;
    const runs: Record<string, Run[]> = { py: [], prev: [], ours: [], prog: [] };
    for (let i = 0; i < RUNS; i++) {
      runs.py!.push(runJson('python3', [join(__dirname, 'cpython_load.py'), path]));
      if (prev) runs.prev!.push(runJson(process.execPath, [prev, path]));
      runs.ours!.push(runJson(process.execPath, [ours, path]));
      runs.prog!.push(runJson(process.execPath, [ours, path, 'progressive']));
    }
    const py = median(runs.py!.map((r) => r.loadMs));
    const grow = (r: Run) => (r.maxRss - r.rssBefore) / size;
    console.log(`${n.toLocaleString('en-US')} events: ${(size / 2 ** 20).toFixed(0)} MiB, ${what}`);
    const row = (name: string, rs: Run[], goal = '') => {
      if (!rs.length) return;
      const t = rs.map((r) => r.totalMs);
      const g = rs.map(grow);
      const line = `  ${name.padEnd(42)} ${s1(median(t)).padStart(8)}${range(t, s1).padEnd(18)} ${x2(median(t) / py).padStart(6)}${range(
        t.map((x) => x / py),
        x2,
      ).padEnd(16)} RSS ${x2(median(g))}${range(g, x2)}`;
      console.log(line + goal);
    };
    row(
      'CPython pickle.load',
      runs.py!.map((r) => ({ ...r, totalMs: r.loadMs })),
    );
    row(`previous reader (${BASE_REF}), load + index`, runs.prev!);
    row('Headroom load + index', runs.ours!, '   goals ≤ 0.35× at 10M, RSS ≤ 1.50×');
    row('Headroom progressive, load + index', runs.prog!);
    const first = runs.prog!.map((r) => r.firstViewMs ?? NaN);
    const mbs = runs.ours!.map((r) => size / 1e6 / (r.loadMs / 1000));
    console.log(`  first useful view (peak, top lines)         ${s1(median(first)).padStart(8)}${range(first, s1)}   goal ≤ 3 s at 10M`);
    console.log(
      `  reader throughput (load only)               ${median(mbs).toFixed(0)} MB/s${range(mbs, (x) => x.toFixed(0))}   target ≥ 250 MB/s\n`,
    );
  }
}

main();
