// npm run bench: loads and indexes the largest snapshot at hand and compares with CPython's
// pickle.load of the same file, measured in this run on this machine. Each measurement is a fresh
// process; the median of RUNS is reported.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { benchSnapshot } from './snapshots';

const ROOT = resolve(__dirname, '..');
const RUNS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;

function main(): void {
  const child = join(ROOT, 'out', 'bench', 'load.child.js');
  buildSync({
    entryPoints: [join(__dirname, 'load.child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    outfile: child,
    logLevel: 'warning',
  });
  const { path, what } = benchSnapshot(ROOT);
  const size = statSync(path).size;
  const py = [];
  const ours = [];
  for (let i = 0; i < RUNS; i++) {
    py.push(JSON.parse(execFileSync('python3', [join(__dirname, 'cpython_load.py'), path], { encoding: 'utf8' })));
    ours.push(JSON.parse(execFileSync(process.execPath, [child, path], { encoding: 'utf8' })));
  }
  const pyMs = median(py.map((r) => r.loadMs));
  const loadMs = median(ours.map((r) => r.loadMs));
  const totalMs = median(ours.map((r) => r.totalMs));
  const maxRss = median(ours.map((r) => r.maxRss));
  const grow = median(ours.map((r) => r.maxRss - r.rssBefore));
  const pyGrow = median(py.map((r) => r.maxRss - r.rssBefore));
  console.log(`snapshot: ${path}\n  ${what}\n  ${mb(size)}, ${ours[0].events} trace events, ${RUNS} runs each (median)\n`);
  console.log(`time   CPython pickle.load            ${pyMs.toFixed(0).padStart(6)} ms   (baseline)`);
  console.log(`       Headroom load                  ${loadMs.toFixed(0).padStart(6)} ms   ${(loadMs / pyMs).toFixed(2)}×`);
  console.log(`       Headroom load + index (replay, attribution at the peak)`);
  console.log(
    `                                      ${totalMs.toFixed(0).padStart(6)} ms   ${(totalMs / pyMs).toFixed(2)}×   goal ≤ 1.50×`,
  );
  console.log(`memory CPython peak RSS growth        ${mb(pyGrow).padStart(10)}   ${(pyGrow / size).toFixed(2)}× the file`);
  console.log(`       Headroom peak RSS growth       ${mb(grow).padStart(10)}   ${(grow / size).toFixed(2)}× the file   goal ≤ 2.00×`);
  console.log(
    `       Headroom peak RSS (absolute)   ${mb(maxRss).padStart(10)}   ${(maxRss / size).toFixed(2)}× the file (includes Node's own ~40 MiB)`,
  );
}

main();
