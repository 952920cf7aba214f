// npm run bench:replay: the caching allocator replayed over a 1M-event trace (exact, with the
// recorded settings) and predicted under the summary page's three settings, each against loading
// the same file in the same process. The trace: a real H100 recording (a transformer, recorded from
// process start, every segment in it) repeated by bench/synth_alloc.py. Fresh process per run;
// medians and ranges of RUNS.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = resolve(__dirname, '..');
const RUNS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);
const EVENTS = 1_000_000;
const SRC = join(ROOT, 'test', 'fixtures', 'whatif', 'transformer-default.pickle.gz');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

function main(): void {
  const path = process.env.HEADROOM_BENCH_SNAPSHOT ?? join(ROOT, 'bench', 'data', `synth_alloc_${EVENTS}.pickle`);
  if (!existsSync(path)) {
    mkdirSync(join(ROOT, 'bench', 'data'), { recursive: true });
    execFileSync('python3', [join(__dirname, 'synth_alloc.py'), SRC, path, String(EVENTS)]);
  }
  // Bundled as the extension and the CLI ship it (the bundler inlines what tsx leaves as lookups).
  const child = join(ROOT, 'out', 'bench', 'replay.child.js');
  buildSync({
    entryPoints: [join(__dirname, 'replay.child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    outfile: child,
    logLevel: 'warning',
  });
  const runs: { loadMs: number; replayMs: number; predictMs: number[]; events: number; allocations: number; mismatches: number }[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(JSON.parse(execFileSync(process.execPath, [child, path], { encoding: 'utf8' })));
  const r0 = runs[0]!;
  console.log(
    `snapshot: ${path} (${(statSync(path).size / 2 ** 20).toFixed(1)} MiB, ${r0.events.toLocaleString('en-US')} events, ${r0.allocations.toLocaleString('en-US')} allocations; ${r0.mismatches} placements differ from the trace), ${RUNS} runs`,
  );
  const load = runs.map((r) => r.loadMs);
  console.log(`load (baseline)                      ${median(load).toFixed(0).padStart(6)} ms`);
  const row = (label: string, ms: number[]) => {
    const ratios = ms.map((m, k) => m / load[k]!);
    console.log(
      `${label.padEnd(36)} ${median(ms).toFixed(0).padStart(6)} ms   ${median(ratios).toFixed(2)}× the load (${range(ratios)})   goal ≤ 1.00×`,
    );
  };
  row(
    'replay, recorded settings (exact)',
    runs.map((r) => r.replayMs),
  );
  ['expandable_segments:True', 'max_split_size_mb:64', 'roundup_power2_divisions:4'].forEach((conf, k) =>
    row(
      `predict ${conf}`,
      runs.map((r) => r.predictMs[k]!),
    ),
  );
}

main();
