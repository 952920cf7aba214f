// GPU host only: step time of the same LM training script with and without Headroom, interleaved
// (plain, headroom, plain, headroom…) so drift hits both; plus the dump time of each snapshot kind.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readRun } from '../../extension/src/core/run/runFolder';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const WORK = join(ROOT, 'test', 'gpu', 'workloads');
const ROUNDS = Number(process.env.HEADROOM_BENCH_ROUNDS ?? 3);
const STEPS = 60;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function stepTimes(withHeadroom: boolean, out: string): { times: number[]; run?: string } {
  const log = join(out, `w${Date.now()}.jsonl`);
  const cmd = ['python3', 'lm_train.py', '--steps', String(STEPS), '--log', log, '--batch', '32'];
  if (withHeadroom) {
    const runs = join(out, 'runs');
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', runs, '--', ...cmd], { cwd: WORK, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    const latest = readdirSync(runs).sort().at(-1)!;
    return { times: JSON.parse(readFileSync(`${log}.stats.json`, 'utf8')).step_times.slice(5), run: join(runs, latest) };
  }
  execFileSync(cmd[0]!, cmd.slice(1), { cwd: WORK });
  return { times: JSON.parse(readFileSync(`${log}.stats.json`, 'utf8')).step_times.slice(5) };
}

const out = mkdtempSync(join(tmpdir(), 'headroom-overhead-'));
const plain: number[] = [];
const hr: number[] = [];
const dumps = new Map<string, number[]>();
for (let i = 0; i < ROUNDS; i++) {
  plain.push(median(stepTimes(false, out).times));
  const h = stepTimes(true, out);
  hr.push(median(h.times));
  for (const e of readRun(h.run!).processes[0]!.events) {
    if (e.event !== 'snapshot') continue;
    const k = String(e.kind);
    dumps.set(k, [...(dumps.get(k) ?? []), Number(e.seconds)]);
  }
}
console.log(`LM training step (batch 32, ctx 256, 6 layers, d=512), median of ${STEPS - 5} steps per run, ${ROUNDS} runs each:`);
console.log(`  without Headroom: ${plain.map((t) => (t * 1000).toFixed(2)).join(', ')} ms`);
console.log(`  with Headroom:    ${hr.map((t) => (t * 1000).toFixed(2)).join(', ')} ms`);
console.log(`  ratio (median of runs): ${(median(hr) / median(plain)).toFixed(4)}×   goal ≤ 1.03×`);
for (const [k, v] of dumps) console.log(`  dump time, ${k} snapshot: ${v.map((s) => s.toFixed(3)).join(', ')} s`);
