import { existsSync, statSync } from 'node:fs';
import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import { formatBytes } from '../shared/format';
import { crossRank, rankProcesses } from '../core/run/ranks';
import { rankRead } from '../core/run/rankRead';
import type { CrossRank, RankRead } from '../core/run/ranks';
import { bestSnapshot, readRun } from '../core/run/runFolder';
import type { ProcessRun } from '../core/run/runFolder';
import { jsonText, plain, plainLines } from '../shared/text';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';

export const RANKS_USAGE = `usage: headroom ranks RUN [--top K] [--json]

  A distributed run's ranks side by side (RUN: the run's folder or any rank's): each rank's peak
  (PyTorch's requested_bytes peak), reserved peak and the device memory outside PyTorch (NCCL's
  buffers, the CUDA context: the driver's figure for the process less PyTorch's reserved), the
  imbalance (highest peak − lowest), the source lines whose bytes at each rank's peak differ most,
  and, when a rank ran out of memory, where the other ranks stood at that moment.
  --top K lines that differ (default 10); --json as JSON.
  Example: headroom run -- torchrun --nproc-per-node 2 train.py && headroom ranks .headroom/runs/<run>`;

/** Each rank's lines at its own peak, read from its best snapshot (an OOM's, else the peak's). */
async function linesAtPeak(p: ProcessRun, io: Io): Promise<RankRead | undefined> {
  const snap = bestSnapshot(p);
  if (!snap) return undefined;
  try {
    const s = await loadForCli(snap.path);
    const d = defaultDevice(s);
    if (d === undefined) return undefined;
    const a = analyzeDevice(s, d);
    return rankRead(s, a);
  } catch (e) {
    // One rank's unreadable snapshot leaves the others' summary standing.
    io.err(`headroom: ${plain(snap.path)}: ${plain((e as Error).message)} (its lines are left out)\n`);
    return undefined;
  }
}

export async function ranksCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { top: { value: true }, json: {} });
  if (p.positional.length !== 1) throw new UsageError(RANKS_USAGE);
  const dir = p.positional[0]!;
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`${plain(dir)} is not a folder (give a run folder, or one of its rank folders)`);
  const top = intFlag(p, 'top') ?? 10;
  if (top < 1) throw new UsageError('--top must be 1 or more');
  const run = readRun(dir, { samples: 'ranks' });
  const ranks = rankProcesses(run);
  if (!ranks.length) throw new UsageError(`${plain(run.dir)} has no rank folders (<run>-rank<N>): it is not a distributed run`);
  const read = new Map<ProcessRun, RankRead | undefined>();
  for (const r of ranks) read.set(r, await linesAtPeak(r, io));
  const summary = crossRank(run, (r) => read.get(r), top);
  if (flag(p, 'json')) {
    io.out(jsonText({ run: run.dir, ...summary }) + '\n');
    return 0;
  }
  io.out(plainLines(render(run.dir, summary)) + '\n');
  return 0;
}

const b = (x: number | null) => (x === null ? '—' : formatBytes(x));

function render(dir: string, s: CrossRank): string {
  const out = [`Ranks of ${plain(dir)} (${s.ranks.length})`, '', '  rank        peak   reserved peak   outside PyTorch   OOMs  snapshot'];
  for (const r of s.ranks)
    out.push(
      `  ${String(r.rank).padStart(4)}  ${b(r.peak).padStart(10)}  ${b(r.reservedPeak).padStart(14)}  ${b(r.outsidePytorch).padStart(16)}  ${String(r.ooms).padStart(5)}  ${plain(r.snapshot ?? '—')}`,
    );
  const peaks = s.ranks.filter((r) => r.peak !== null);
  if (s.imbalance !== null && peaks.length > 1) {
    const hi = peaks.reduce((a, x) => (x.peak! > a.peak! ? x : a));
    const lo = peaks.reduce((a, x) => (x.peak! < a.peak! ? x : a));
    out.push('', `Imbalance  ${formatBytes(s.imbalance)} (rank ${hi.rank} − rank ${lo.rank})`);
  }
  if (s.lines.length) {
    out.push(
      '',
      'Lines that differ most between ranks (bytes at each rank’s peak):',
      `  ${'spread'.padStart(10)}  ${s.ranks.map((r) => `rank ${r.rank}`.padStart(10)).join('  ')}  line`,
    );
    for (const l of s.lines)
      out.push(
        `  ${formatBytes(l.spread).padStart(10)}  ${l.bytes.map((x) => b(x).padStart(10)).join('  ')}  ${plain(l.file)}:${l.line} (${plain(l.name)})`,
      );
  }
  if (s.modules.length) {
    out.push(
      '',
      'Modules that differ most between ranks (self bytes at each rank’s peak):',
      `  ${'spread'.padStart(10)}  ${s.ranks.map((r) => `rank ${r.rank}`.padStart(10)).join('  ')}  module`,
    );
    for (const m of s.modules)
      out.push(`  ${formatBytes(m.spread).padStart(10)}  ${m.bytes.map((x) => b(x).padStart(10)).join('  ')}  ${plain(m.path)}`);
  }
  if (s.oom) {
    out.push(
      '',
      `Rank ${s.oom.rank} ran out of memory at ${new Date(s.oom.timeUs / 1000).toISOString()}; the other ranks then (their last sample before it):`,
    );
    for (const o of s.oom.others)
      out.push(
        `  rank ${o.rank}: allocated ${formatBytes(o.allocated)}, reserved ${formatBytes(o.reserved)}, outside PyTorch ${b(o.outsidePytorch)} (${(o.ageUs / 1000).toFixed(0)} ms before)`,
      );
    if (!s.oom.others.length) out.push('  no other rank had a sample by then');
  }
  return out.join('\n');
}
