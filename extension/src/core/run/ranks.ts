import { basename, dirname, resolve } from 'node:path';
import { differingLines, differingModules } from '../source/diff';
import type { LineBytes, LineSpread, ModuleSpread } from '../source/diff';
import { folderIdentity } from './processes';
import type { Sample } from './protocol';
import { oomAcrossRanks, outside } from './rankOom';
import type { RankOom } from './rankOom';
import { bestSnapshot, runBeside } from './runFolder';
import type { ProcessRun, Run } from './runFolder';

/** One rank of a distributed run, from its own folder's samples and events (no snapshot read). */
export interface RankFacts {
  rank: number;
  /** PyTorch's requested_bytes.all.peak: the samples' running max_requested (the agent never resets it). */
  peak: number | null;
  reservedPeak: number | null;
  /** What the driver says the process holds beyond PyTorch's reserved memory (NCCL buffers, the CUDA context), at the rank's last sample. */
  outsidePytorch: number | null;
  ooms: number;
  /** The snapshot a summary reads for this rank (an OOM's, else the peak's), by file name. */
  snapshot: string | null;
}

/** What one rank's snapshot says: its lines (and modules, with scopes) at its peak, its peak and reserved peak (replayed). */
export interface RankRead {
  lines: LineBytes[];
  /** Self bytes by nn.Module path, for runs recorded with module scopes. */
  modules?: { path: string; bytes: number }[];
  peak: number;
  reservedPeak: number;
}

export interface CrossRank {
  ranks: RankFacts[];
  /** Max − min of the ranks' peaks (null with fewer than two peaks). */
  imbalance: number | null;
  lines: LineSpread[];
  modules: ModuleSpread[];
  oom: RankOom | null;
}

/** The run's ranks in order (processes without a rank, such as data workers, are not ranks). */
export function rankProcesses(run: Run): (ProcessRun & { rank: number })[] {
  return run.processes.filter((p): p is ProcessRun & { rank: number } => p.rank !== null).sort((a, b) => a.rank - b.rank);
}

export function rankFacts(p: ProcessRun & { rank: number }): RankFacts {
  let peak: number | null = null;
  let reservedPeak: number | null = null;
  let last: Sample | undefined;
  for (const s of p.samples) {
    peak = Math.max(peak ?? 0, s.max_requested);
    reservedPeak = Math.max(reservedPeak ?? 0, s.max_reserved);
    if (!last || s.t >= last.t) last = s;
  }
  const snap = bestSnapshot(p);
  return {
    rank: p.rank,
    peak,
    reservedPeak,
    outsidePytorch: outside(last),
    ooms: p.events.filter((e) => e.event === 'oom').length,
    snapshot: snap ? basename(snap.path) : null,
  };
}

/**
 * The cross-rank summary, given what each rank's snapshot says (read by the caller, who loads
 * snapshots); a rank without samples (its sampler never ran) takes its peaks from there.
 */
export function crossRank(run: Run, readRank: (p: ProcessRun) => RankRead | undefined, top = 10): CrossRank {
  const ranks = rankProcesses(run);
  const read = ranks.map(readRank);
  const facts = ranks.map((p, i) => {
    const f = rankFacts(p);
    f.peak ??= read[i]?.peak ?? null;
    f.reservedPeak ??= read[i]?.reservedPeak ?? null;
    return f;
  });
  const peaks = facts.map((f) => f.peak).filter((x): x is number => x !== null);
  return {
    ranks: facts,
    imbalance: peaks.length > 1 ? peaks.reduce((m, x) => Math.max(m, x)) - peaks.reduce((m, x) => Math.min(m, x)) : null,
    lines: differingLines(
      read.map((r) => r?.lines),
      top,
    ),
    modules: differingModules(
      read.map((r) => r?.modules),
      top,
    ),
    oom: oomAcrossRanks(ranks),
  };
}

/** The distributed run a snapshot belongs to, when it sits in a rank's folder of a run with two ranks or more. `run`: that run, when already read. */
export function distributedRunOf(
  snapshotPath: string,
  run: Run | undefined = runBeside(snapshotPath),
): { run: Run; rank: number } | undefined {
  const rank = folderIdentity(basename(dirname(resolve(snapshotPath)))).rank;
  return rank !== null && run && rankProcesses(run).length >= 2 ? { run, rank } : undefined;
}
