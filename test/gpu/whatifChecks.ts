// The allocator what-if check, shared by the GPU test (every capture run.sh makes) and the unit
// test (the committed ones): each recording replayed with its own settings must place every block
// where the trace did and give PyTorch's own peaks; each other setting, predicted from the
// workload's default recording, is compared with its rerun (reserved peak, OOM or not).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyAllocConf } from '../../extension/src/core/allocator/confString';
import { configFrom } from '../../extension/src/core/allocator/config';
import { predictAllocator } from '../../extension/src/core/allocator/predict';
import { replayAllocator } from '../../extension/src/core/allocator/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';

/** What workloads.py writes beside each recording: PyTorch's own figures. */
export interface RunFigures {
  workload: string;
  alloc_conf: string;
  cap_bytes: number | null;
  oom: boolean;
  reserved_peak: number;
  allocated_peak: number;
  allocated_end: number;
  device: string;
  torch: string;
}

export interface ReplayRow {
  name: string;
  allocations: number;
  mismatches: number;
  allocatedPeak: [replayed: number, pytorch: number];
  reservedPeak: [replayed: number, pytorch: number];
  allocatedEnd: [replayed: number, pytorch: number];
}

export interface PredictionRow {
  workload: string;
  setting: string;
  capBytes: number | null;
  recordedReserved: number;
  predicted: number;
  rerun: number;
  /** (predicted − rerun) / rerun. */
  error: number;
  oom: [predicted: boolean, rerun: boolean];
}

/** A recording's snapshot, plain or gzip-compressed (the larger committed ones). */
const pickleOf = (dir: string, name: string) => [join(dir, `${name}.pickle`), join(dir, `${name}.pickle.gz`)].find((p) => existsSync(p));
const readRun = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as RunFigures;
export const runNames = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('summary'))
    .map((f) => f.slice(0, -5))
    .sort();

/** Every recording in `dir` that has its pickle, replayed with its own settings. */
export async function replayRows(dir: string, names = runNames(dir).filter((x) => pickleOf(dir, x))): Promise<ReplayRow[]> {
  const rows: ReplayRow[] = [];
  for (const name of names) {
    const fig = readRun(dir, name);
    const r = replayAllocator(await loadSnapshotFile(pickleOf(dir, name)!), 0);
    if (!r.supported) throw new Error(`${name}: not replayed: ${r.reason}`);
    rows.push({
      name,
      allocations: r.allocations,
      mismatches: r.mismatchCount,
      allocatedPeak: [r.allocatedPeak, fig.allocated_peak],
      reservedPeak: [r.reservedPeak, fig.reserved_peak],
      allocatedEnd: [r.allocated.at(-1) ?? 0, fig.allocated_end],
    });
  }
  return rows;
}

/** Every rerun in `dir` predicted from its workload's default recording (`<workload>-default.pickle`). */
export async function predictionRows(dir: string): Promise<PredictionRow[]> {
  const rows: PredictionRow[] = [];
  for (const name of runNames(dir)) {
    const fig = readRun(dir, name);
    if (name === `${fig.workload}-default` || name.endsWith('-again')) continue;
    const source = `${fig.workload}-default`;
    const s = await loadSnapshotFile(pickleOf(dir, source)!);
    const cfg = applyAllocConf(configFrom(s.allocatorSettings), fig.alloc_conf);
    const p = predictAllocator(s, 0, cfg, { bytes: fig.cap_bytes ?? Infinity, cap: fig.cap_bytes !== null });
    if (!p.supported) throw new Error(`${name}: not predicted: ${p.reason}`);
    rows.push({
      workload: fig.workload,
      setting: fig.alloc_conf || '(default)',
      capBytes: fig.cap_bytes,
      recordedReserved: readRun(dir, source).reserved_peak,
      predicted: p.reservedPeak,
      rerun: fig.reserved_peak,
      error: (p.reservedPeak - fig.reserved_peak) / fig.reserved_peak,
      oom: [p.ooms.length > 0, fig.oom],
    });
  }
  return rows;
}

const n = (x: number) => x.toLocaleString('en-US');
const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(2)} %`;

/** The table for docs/allocator-replay.md. */
export function predictionTable(rows: PredictionRow[]): string {
  const head =
    '| workload | setting | cap | recorded reserved peak (default) | predicted | rerun | error | OOM predicted / rerun |\n|---|---|---|---|---|---|---|---|\n';
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.workload} | \`${r.setting}\` | ${r.capBytes ? `${r.capBytes / 2 ** 20} MiB` : '—'} | ${n(r.recordedReserved)} B | ${n(r.predicted)} B | ${n(r.rerun)} B | ${pct(r.error)} | ${r.oom[0] ? 'OOM' : 'fits'} / ${r.oom[1] ? 'OOM' : 'fits'} |`,
      )
      .join('\n') +
    '\n'
  );
}

/** Recordings the replay did not reproduce exactly (placements, PyTorch's peaks, the end): empty when all are exact. */
export const inexact = (rows: ReplayRow[]): string[] =>
  rows
    .filter(
      (r) =>
        r.mismatches ||
        r.allocatedPeak[0] !== r.allocatedPeak[1] ||
        r.reservedPeak[0] !== r.reservedPeak[1] ||
        r.allocatedEnd[0] !== r.allocatedEnd[1],
    )
    .map((r) => `${r.name}: ${JSON.stringify(r)}`);

/** Predictions wrong on OOM or not, or off by more than `tolerance` (by workload: a run-to-run spread). */
export const missed = (rows: PredictionRow[], tolerance: (workload: string) => number = () => 0.03): string[] =>
  rows
    .filter((r) => r.oom[0] !== r.oom[1] || Math.abs(r.error) > tolerance(r.workload))
    .map(
      (r) =>
        `${r.workload} ${r.setting} cap ${r.capBytes}: predicted ${r.predicted}${r.oom[0] ? ' OOM' : ''}, rerun ${r.rerun}${r.oom[1] ? ' OOM' : ''}`,
    );
