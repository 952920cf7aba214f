// GPU host only: what Headroom costs a training loop, measured side by side in one run. Two
// workloads (test/gpu/capture/overhead/loop.py): launch-bound (a small nanoGPT: the CPU issues
// kernels as fast as it can, so every µs per allocation shows) and GPU-bound (a wide model). Each
// runs plain, with PyTorch's recorder alone, under `headroom run --record full` and under
// `headroom run` (recording windows, the default), interleaved for ROUNDS rounds (costs.py); the
// figures are the medians and minimums of each run's per-iteration times, and ratios to plain.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const COSTS = join(ROOT, 'test', 'gpu', 'capture', 'overhead', 'costs.py');
const ROUNDS = Math.max(3, Number(process.env.HEADROOM_BENCH_ROUNDS ?? 3));
// Fewer iterations per run buy more rounds in the same device time (the launch-bound loop's default: 200).
const ITERS = process.env.HEADROOM_BENCH_ITERS ? ['--iters', process.env.HEADROOM_BENCH_ITERS] : [];
const MODES = ['plain', 'full', 'hr-full', 'hr-default'] as const;
const LABEL: Record<(typeof MODES)[number], string> = {
  plain: 'plain',
  full: "PyTorch's recorder alone",
  'hr-full': 'headroom run --record full',
  'hr-default': 'headroom run (windows)',
};

type Runs = Record<string, { median: number; min: number }[]>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function measure(args: string[]): Runs {
  const r = spawnSync('python3', [COSTS, String(ROUNDS), ...args, '--modes', MODES.join(',')], {
    encoding: 'utf8',
    env: { ...process.env, HEADROOM_NODE: process.execPath, HEADROOM_CLI: CLI },
    maxBuffer: 1 << 26,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('COSTS '));
  if (r.status !== 0 || !line) throw new Error(`costs.py failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line.slice(6)) as Runs;
}

function table(title: string, runs: Runs, goals: Partial<Record<(typeof MODES)[number], [string, number]>>): void {
  const base = median(runs.plain!.map((x) => x.median));
  const baseMin = Math.min(...runs.plain!.map((x) => x.min));
  const recorder = median(runs.full!.map((x) => x.median));
  console.log(`\n${title} (${ROUNDS} interleaved rounds; per run: the median and minimum iteration)`);
  console.log('| run | median (ms) | min (ms) | vs plain (median) | vs plain (min) | paired, per round (median, range) | goal |');
  console.log('|---|---|---|---|---|---|---|');
  for (const m of MODES) {
    const med = median(runs[m]!.map((x) => x.median));
    const min = Math.min(...runs[m]!.map((x) => x.min));
    const goal = goals[m];
    const ratio = goal && goal[0] === 'recorder' ? med / recorder : med / base;
    const verdict = goal
      ? `${goal[0] === 'recorder' ? 'vs recorder ' : ''}${ratio.toFixed(3)}× ≤ ${goal[1]}× ${ratio <= goal[1] ? 'met' : 'NOT met'}`
      : '';
    // Each round's run against the same round's baseline (run just before it): the host's drift
    // between rounds cancels; the range says how far one round can be trusted.
    const against = goal && goal[0] === 'recorder' ? runs.full! : runs.plain!;
    const pairs = runs[m]!.map((x, i) => x.median / against[i]!.median);
    const paired = `${median(pairs).toFixed(3)}× (${Math.min(...pairs).toFixed(3)}–${Math.max(...pairs).toFixed(3)}) vs ${goal && goal[0] === 'recorder' ? 'recorder' : 'plain'}`;
    console.log(
      `| ${LABEL[m]} | ${(med * 1e3).toFixed(2)} | ${(min * 1e3).toFixed(2)} | ${(med / base).toFixed(3)}× | ${(min / baseMin).toFixed(3)}× | ${paired} | ${verdict} |`,
    );
  }
}

// HEADROOM_BENCH_WORKLOADS=launch (or gpu) runs one of the two.
const ONLY = process.env.HEADROOM_BENCH_WORKLOADS ?? 'launch,gpu';
if (ONLY.includes('launch'))
  table('Launch-bound: nanoGPT-style, 6 layers × 384, block 256, batch 64, 2 micro-steps', measure(ITERS), {
    'hr-default': ['plain', 1.03],
    'hr-full': ['recorder', 1.02],
  });
if (ONLY.includes('gpu'))
  table('GPU-bound: 8 layers × 1024, block 1024, batch 8, 2 micro-steps', measure(['--gpu-bound']), {
    'hr-default': ['plain', 1.01],
    'hr-full': ['recorder', 1.02],
  });
