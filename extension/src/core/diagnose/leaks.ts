import type { DeviceAnalysis } from '../analysis/analyze';
import { plain } from '../text';
import { formatBytes } from '../format';
import { keepsPerIteration } from './leakText';
import { Origin } from '../analysis/replay';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases } from '../timeline/categories';
import { eventAt } from '../timeline/lod';

/**
 * Runtime leak detection: live bytes measured at the same point of every iteration; when they grow
 * steadily (a robust slope past the warm-up), the lines that created what stays alive.
 */
export interface LeakLine {
  file: string;
  line: number;
  name: string;
  /** Bytes created at this line per iteration and still alive iterations later. */
  bytesPerIteration: number;
  blocksPerIteration: number;
  /** The median size of those blocks. */
  blockBytes: number;
}

export interface LeakReport {
  device: number;
  /** How iterations were found: optimizer steps (annotations), backward passes, or the line that runs once per iteration. */
  basis: LeakBasis | 'none';
  /** Event index after which each iteration's figure is taken. */
  boundaries: number[];
  /** Requested bytes live at each boundary. */
  live: number[];
  /** Theil–Sen slope past the warm-up: bytes per iteration. */
  bytesPerIteration: number;
  leaking: boolean;
  /** Lines whose creations stay alive, most per iteration first. */
  lines: LeakLine[];
  /** The last boundary (for the timeline): event index and time. */
  moment: { index: number; timeUs: number | null } | null;
}

export type LeakBasis = 'optimizer step' | 'backward' | 'repeating line';

export interface LeakOptions {
  /** Iterations ignored at the start (caches, optimizer state, lazy init). */
  warmup?: number;
  /** Fewer measured iterations than this: no verdict. */
  minIterations?: number;
  /** A slope below this is noise or bytes (a scalar's graph history), not a leak. */
  minBytesPerIteration?: number;
  /** Force how iterations are found (default: every way that finds enough, the one that leaks most wins). */
  basis?: LeakBasis;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};

/** Theil–Sen: the median of pairwise slopes (outliers such as one-off caches move it little); ≤ 200 points. */
export function theilSen(ys: readonly number[]): number {
  const step = Math.max(1, Math.ceil(ys.length / 200));
  const pts = ys.map((y, x) => [x, y] as const).filter((_, i) => i % step === 0);
  const slopes: number[] = [];
  for (let i = 0; i < pts.length; i++) for (let j = i + 1; j < pts.length; j++) slopes.push((pts[j]![1] - pts[i]![1]) / (pts[j]![0] - pts[i]![0]));
  return median(slopes);
}

/** Where each of the trace's loops starts an iteration: one candidate per number of passes. */
function loopsByLine(s: Snapshot, a: DeviceAnalysis, min: number): number[][] {
  const e = a.replay.elements;
  const order = Array.from({ length: e.count }, (_, k) => k).filter((k) => e.origin[k] === Origin.Trace).sort((x, y) => e.alloc[x]! - e.alloc[y]!);
  const byLine = new Map<string, number[]>();
  let previous = '';
  for (const k of order) {
    const f = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
    const key = f < 0 ? '' : `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`;
    // One visit per run of allocations from the same line (a forward allocates several tensors).
    if (key && key !== previous) byLine.set(key, [...(byLine.get(key) ?? []), e.alloc[k]!]);
    previous = key;
  }
  // Lines of one loop run as often as each other: per count, the earliest line marks the iterations.
  const first = new Map<number, number[]>();
  for (const visits of byLine.values()) {
    if (visits.length < min) continue;
    const seen = first.get(visits.length);
    if (!seen || visits[0]! < seen[0]!) first.set(visits.length, visits);
  }
  return [...first.values()].map((v) => v.map((i) => i - 1).slice(1));
}

/**
 * The event before each `Optimizer.step` starts, one series per optimizer (a GAN steps two): the
 * annotations PyTorch records while history is on (2.5+, needs times to be placed on the trace).
 */
function optimizerSteps(s: Snapshot, a: DeviceAnalysis, min: number): number[][] {
  const times = a.replay.timeUs;
  const n = a.replay.n;
  if (!s.hasTimes || !n) return [];
  const byName = new Map<string, number[]>();
  for (const an of s.annotations) {
    if (an.device !== a.device || an.stage !== 'START' || !an.name.startsWith('Optimizer.step#') || Number.isNaN(an.timeUs)) continue;
    const i = eventAt(times, n, an.timeUs);
    if (i > 0 && i < n) byName.set(an.name, [...(byName.get(an.name) ?? []), i - 1]);
  }
  return [...byName.values()].filter((at) => at.length >= min);
}

/**
 * Iteration boundaries, every way there is: before each optimizer step; the end of each backward
 * pass (the step's activations are freed, its gradients made); and, for loops without either (an
 * eval loop, also one beside training), the allocations of the earliest line of each group of
 * lines that run equally often.
 */
function candidates(s: Snapshot, a: DeviceAnalysis, min: number, force?: LeakBasis): { basis: LeakBasis; at: number[] }[] {
  const n = a.replay.n;
  const out: { basis: LeakBasis; at: number[] }[] = [];
  if (!force || force === 'optimizer step') for (const at of optimizerSteps(s, a, min)) out.push({ basis: 'optimizer step', at });
  // A backward pass still open when the trace ends is no finished iteration (and the run's own
  // teardown frees follow it).
  const ends = [...backwardPhases(s, a).end].filter((i) => i < n);
  if (ends.length >= min && (!force || force === 'backward')) out.push({ basis: 'backward', at: ends.map((i) => i - 1) });
  if (!force || force === 'repeating line') for (const at of loopsByLine(s, a, min)) out.push({ basis: 'repeating line', at });
  return out;
}

// The editor's diagnostics, the summary page and the CLI ask for the default report of one analysis.
const defaults = new WeakMap<DeviceAnalysis, LeakReport>();

export function detectLeaks(s: Snapshot, a: DeviceAnalysis, opts: LeakOptions = {}): LeakReport {
  if (Object.keys(opts).length) return findLeaks(s, a, opts);
  let r = defaults.get(a);
  if (!r) defaults.set(a, (r = findLeaks(s, a, opts)));
  return r;
}

function findLeaks(s: Snapshot, a: DeviceAnalysis, opts: LeakOptions): LeakReport {
  const warmup = opts.warmup ?? 2;
  const min = opts.minIterations ?? 6;
  const reports = candidates(s, a, min + warmup, opts.basis).map((c) => measure(s, a, c.basis, c.at, warmup, min, opts.minBytesPerIteration ?? 64 * 1024));
  // The loop that leaks most, else the first way of counting iterations (backward passes).
  const leaking = reports.filter((r) => r.leaking).sort((x, y) => y.bytesPerIteration - x.bytesPerIteration);
  return leaking[0] ?? reports[0] ?? { device: a.device, basis: 'none', boundaries: [], live: [], bytesPerIteration: 0, leaking: false, lines: [], moment: null };
}

function measure(s: Snapshot, a: DeviceAnalysis, basis: LeakBasis, at: number[], warmup: number, min: number, floor: number): LeakReport {
  const live = at.map((i) => (i < 0 ? a.replay.start.requestedBytes : a.replay.requested[i]!));
  const none: LeakReport = { device: a.device, basis, boundaries: at, live, bytesPerIteration: 0, leaking: false, lines: [], moment: null };
  if (at.length < min + warmup) return none;
  const slope = theilSen(live.slice(warmup));
  // What was created between the first measured boundary and the one before last and is still
  // alive at the last: the current iteration's transients (this step's gradients) are not growth.
  const from = at[warmup]!;
  const to = at.at(-2)!;
  const last = at.at(-1)!;
  const iterations = at.length - 2 - warmup;
  const e = a.replay.elements;
  const lines = new Map<string, LeakLine & { sizes: number[] }>();
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace || e.alloc[k]! <= from || e.alloc[k]! > to || e.free[k]! <= last) continue;
    const f = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
    if (f < 0) continue;
    // Frames of one line (several stacks) merge into the line.
    const key = `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`;
    const l = lines.get(key) ?? { file: s.frames.fileOf(f), line: s.frames.lineOf(f), name: s.frames.nameOf(f), bytesPerIteration: 0, blocksPerIteration: 0, blockBytes: 0, sizes: [] };
    l.bytesPerIteration += e.size[k]! / iterations;
    l.blocksPerIteration += 1 / iterations;
    l.sizes.push(e.size[k]!);
    lines.set(key, l);
  }
  const grown = [...lines.values()]
    .map(({ sizes, ...l }) => ({ ...l, blockBytes: median(sizes) }))
    .filter((l) => l.bytesPerIteration > 0)
    .sort((x, y) => y.bytesPerIteration - x.bytesPerIteration);
  return { ...none, bytesPerIteration: slope, leaking: slope >= floor && grown.length > 0, lines: grown, moment: { index: last, timeUs: Number.isNaN(a.replay.timeUs[last] ?? NaN) ? null : a.replay.timeUs[last]! } };
}

/** "train.py:57 (step) keeps 2 tensors of 2.00 MiB per iteration = 4.00 MiB, created there and never freed". */
export function describeLeak(r: LeakReport): string[] {
  const n = Math.max(0, r.boundaries.length);
  if (!r.leaking) return [`No leak: live memory changes by ${formatBytes(r.bytesPerIteration)} per iteration over ${n} iteration${n === 1 ? '' : 's'} (${r.basis}).`];
  return [
    `Live memory grows by ${formatBytes(r.bytesPerIteration)} per iteration over ${n} iterations (${r.basis}), the last at event #${r.moment?.index ?? '?'}.`,
    ...r.lines.slice(0, 5).map((l) => `  ${plain(l.file)}:${l.line} (${plain(l.name)}) keeps ${keepsPerIteration(l)}, created there and never freed`),
  ];
}
