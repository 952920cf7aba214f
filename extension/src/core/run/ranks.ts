import { basename, dirname, resolve } from 'node:path';
import { folderIdentity } from './processes';
import type { Sample } from './protocol';
import { bestSnapshot, readRun } from './runFolder';
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

/** A line's self bytes at one rank's peak, as the attribution gives them. */
export interface RankLineInput {
  file: string;
  line: number;
  name: string;
  bytes: number;
}

/** What one rank's snapshot says: its lines (and modules, with scopes) at its peak, its peak and reserved peak (replayed). */
export interface RankRead {
  lines: RankLineInput[];
  /** Self bytes by nn.Module path, for runs recorded with module scopes. */
  modules?: { path: string; bytes: number }[];
  peak: number;
  reservedPeak: number;
}

/** A module's self bytes at each rank's peak (null: that rank has no scoped snapshot), and the spread. */
export interface RankModule {
  path: string;
  bytes: (number | null)[];
  spread: number;
}

/** A line's bytes at each rank's peak (null: that rank has no snapshot), and the spread between ranks. */
export interface RankLine {
  file: string;
  line: number;
  name: string;
  bytes: (number | null)[];
  spread: number;
}

/** One rank ran out of memory; where the others stood at that moment (their last sample before it). */
export interface RankOom {
  rank: number;
  timeUs: number;
  others: { rank: number; ageUs: number; allocated: number; reserved: number; outsidePytorch: number | null }[];
}

export interface CrossRank {
  ranks: RankFacts[];
  /** Max − min of the ranks' peaks (null with fewer than two peaks). */
  imbalance: number | null;
  lines: RankLine[];
  modules: RankModule[];
  oom: RankOom | null;
}

const outside = (s: Sample | undefined): number | null => (s && typeof s.device_used === 'number' ? Math.max(0, s.device_used - s.reserved) : null);

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
  return { rank: p.rank, peak, reservedPeak, outsidePytorch: outside(last), ooms: p.events.filter((e) => e.event === 'oom').length, snapshot: snap ? basename(snap.path) : null };
}

/**
 * The lines whose bytes at each rank's peak differ most between ranks (as Mosaic reports
 * imbalance): `perRank[i]` is rank i's lines at its peak, undefined when it has no snapshot.
 */
export function differingLines(perRank: readonly (RankLineInput[] | undefined)[], top: number): RankLine[] {
  return differing(perRank, (l) => `${l.file}:${l.line}`, (l, bytes) => ({ file: l.file, line: l.line, name: l.name, bytes, spread: 0 }), (a, b) => a.file.localeCompare(b.file) || a.line - b.line, top);
}

/** The same for modules (runs recorded with scopes). */
export function differingModules(perRank: readonly ({ path: string; bytes: number }[] | undefined)[], top: number): RankModule[] {
  return differing(perRank, (m) => m.path, (m, bytes) => ({ path: m.path, bytes, spread: 0 }), (a, b) => a.path.localeCompare(b.path), top);
}

/** Rows keyed by `key`, each rank's bytes summed, those that differ between ranks, widest spread first (then `tie`). */
function differing<I extends { bytes: number }, R extends { bytes: (number | null)[]; spread: number }>(perRank: readonly (I[] | undefined)[], key: (x: I) => string, make: (x: I, bytes: (number | null)[]) => R, tie: (a: R, b: R) => number, top: number): R[] {
  const byKey = new Map<string, R>();
  perRank.forEach((xs, i) => {
    for (const x of xs ?? []) {
      const k = key(x);
      let row = byKey.get(k);
      if (!row) byKey.set(k, (row = make(x, perRank.map((r) => (r ? 0 : null)))));
      row.bytes[i] = (row.bytes[i] ?? 0) + x.bytes;
    }
  });
  const rows = [...byKey.values()];
  for (const r of rows) {
    const known = r.bytes.filter((b): b is number => b !== null);
    r.spread = known.length > 1 ? Math.max(...known) - Math.min(...known) : 0;
  }
  return rows
    .filter((r) => r.spread > 0)
    .sort((a, b) => b.spread - a.spread || tie(a, b))
    .slice(0, top);
}

/** The first OOM of any rank, and each other rank's last sample at or before it. */
export function oomAcrossRanks(ranks: readonly (ProcessRun & { rank: number })[]): RankOom | null {
  let first: { rank: number; t: number } | undefined;
  for (const p of ranks) for (const e of p.events) if (e.event === 'oom' && (!first || e.t < first.t)) first = { rank: p.rank, t: e.t };
  if (!first) return null;
  const at = first;
  const others = ranks
    .filter((p) => p.rank !== at.rank)
    .flatMap((p) => {
      let s: Sample | undefined;
      for (const x of p.samples) if (x.t <= at.t && (!s || x.t > s.t)) s = x;
      return s ? [{ rank: p.rank, ageUs: at.t - s.t, allocated: s.allocated, reserved: s.reserved, outsidePytorch: outside(s) }] : [];
    });
  return { rank: at.rank, timeUs: at.t, others };
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
    imbalance: peaks.length > 1 ? Math.max(...peaks) - Math.min(...peaks) : null,
    lines: differingLines(read.map((r) => r?.lines), top),
    modules: differingModules(read.map((r) => r?.modules), top),
    oom: oomAcrossRanks(ranks),
  };
}

/** The distributed run a snapshot belongs to, when it sits in a rank's folder of a run with two ranks or more. */
export function distributedRunOf(snapshotPath: string): { run: Run; rank: number } | undefined {
  const dir = dirname(resolve(snapshotPath));
  const rank = folderIdentity(basename(dir)).rank;
  if (rank === null) return undefined;
  try {
    // The samples' tail: max_requested is a running peak, and an OOM ends a run soon after.
    const run = readRun(dir, { samples: 'tail' });
    return rankProcesses(run).length >= 2 ? { run, rank } : undefined;
  } catch {
    return undefined; // a folder that does not read as a run says nothing
  }
}
