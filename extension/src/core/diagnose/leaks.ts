import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { plain } from '../../shared/text';
import { formatBytes } from '../../shared/format';
import { keepsPerIteration } from './leakText';
import { Origin } from '../analysis/replay';
import type { Snapshot } from '../snapshot/model';
import { iterationBoundaries } from './leakBoundaries';
import type { LeakBasis } from './leakBoundaries';

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
  /** A warning when a million more iterations would fill what the device has left; else a hint. */
  severity: 'hint' | 'warning';
  /** A steady growth below minBytesPerIteration. */
  tolerated?: boolean;
}

export interface LeakOptions {
  /** Iterations ignored at the start (caches, optimizer state, lazy init). */
  warmup?: number;
  /** Fewer measured iterations than this: no verdict. */
  minIterations?: number;
  /** Growth below this per iteration is tolerated (`headroom check --leak-min`); default 0: any steady growth. */
  minBytesPerIteration?: number;
  /** Force how iterations are found (default: the run's own structure, see leakBoundaries.ts). */
  basis?: LeakBasis;
  /** The device's memory, for the severity (default 80 GiB). */
  deviceTotal?: number;
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
  for (let i = 0; i < pts.length; i++)
    for (let j = i + 1; j < pts.length; j++) slopes.push((pts[j]![1] - pts[i]![1]) / (pts[j]![0] - pts[i]![0]));
  return median(slopes);
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
  const headroom = (opts.deviceTotal ?? 80 * 2 ** 30) - a.replay.reservedPeak.bytes;
  const reports = iterationBoundaries(s, a, min + warmup, opts.basis).map((c) =>
    measure(s, a, c.basis, c.at, warmup, min, opts.minBytesPerIteration ?? 0, headroom),
  );
  // The training structure first; an eval loop beside it only when it leaks itself.
  return (
    reports.find((r) => r.leaking) ??
    reports[0] ?? {
      device: a.device,
      basis: 'none',
      boundaries: [],
      live: [],
      bytesPerIteration: 0,
      leaking: false,
      lines: [],
      moment: null,
      severity: 'hint',
    }
  );
}

/** Share of the measured iterations in which a line created something still alive at the end. */
const STEADY = 0.6;

function measure(
  s: Snapshot,
  a: DeviceAnalysis,
  basis: LeakBasis,
  at: number[],
  warmup: number,
  min: number,
  floor: number,
  headroom: number,
): LeakReport {
  const live = at.map((i) => (i < 0 ? a.replay.start.requestedBytes : a.replay.requested[i]!));
  const none: LeakReport = {
    device: a.device,
    basis,
    boundaries: at,
    live,
    bytesPerIteration: 0,
    leaking: false,
    lines: [],
    moment: null,
    severity: 'hint',
  };
  if (at.length < min + warmup) return none;
  const slope = theilSen(live.slice(warmup));
  // What was created between the first measured boundary and the one before last and is still
  // alive at the last: the current iteration's transients (this step's gradients) are not growth.
  const from = at[warmup]!;
  const to = at.at(-2)!;
  const last = at.at(-1)!;
  const iterations = at.length - 2 - warmup;
  const e = a.replay.elements;
  const lines = new Map<string, LeakLine & { sizes: number[]; iterations: Set<number> }>();
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace || e.alloc[k]! <= from || e.alloc[k]! > to || e.free[k]! <= last) continue;
    const f = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
    if (f < 0) continue;
    // Frames of one line (several stacks) merge into the line.
    const key = `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`;
    const l = lines.get(key) ?? {
      file: s.frames.fileOf(f),
      line: s.frames.lineOf(f),
      name: s.frames.nameOf(f),
      bytesPerIteration: 0,
      blocksPerIteration: 0,
      blockBytes: 0,
      sizes: [] as number[],
      iterations: new Set<number>(),
    };
    l.bytesPerIteration += e.size[k]! / iterations;
    l.blocksPerIteration += 1 / iterations;
    l.sizes.push(e.size[k]!);
    l.iterations.add(iterationOf(at, e.alloc[k]!));
    lines.set(key, l);
  }
  // Steady: created at the same line in most iterations and never freed. A cache that grew during
  // the first steps and then stopped (lazy init, workspaces, a bounded buffer) is not.
  const grown = [...lines.values()]
    .filter((l) => l.bytesPerIteration > 0 && l.iterations.size >= STEADY * iterations)
    .map(({ sizes, iterations: _, ...l }) => ({ ...l, blockBytes: median(sizes) }))
    .sort((x, y) => y.bytesPerIteration - x.bytesPerIteration);
  const kept = grown.reduce((t, l) => t + l.bytesPerIteration, 0);
  // The steady lines explain the slope (within a factor of two): the growth is theirs.
  const steady = slope > 0 && grown.length > 0 && kept >= slope / 2 && kept <= slope * 2;
  const leaking = steady && slope >= floor;
  const severity = leaking && slope * 1e6 >= headroom ? 'warning' : 'hint';
  return {
    ...none,
    bytesPerIteration: slope,
    leaking,
    ...(steady && !leaking ? { tolerated: true } : {}),
    lines: leaking ? grown : [],
    severity,
    moment: { index: last, timeUs: Number.isNaN(a.replay.timeUs[last] ?? NaN) ? null : a.replay.timeUs[last]! },
  };
}

/** The iteration (index of the boundary it follows) an event belongs to: the first boundary at or after it. */
export function iterationOf(at: readonly number[], event: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < event) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** "+2.50 KiB per iteration: 24.4 MiB per 10,000 iterations". */
export function projection(r: LeakReport): string {
  return `+${formatBytes(r.bytesPerIteration)} per iteration: ${formatBytes(r.bytesPerIteration * 10_000)} per 10,000 iterations`;
}

/** "train.py:57 (step) keeps 2 tensors of 2.00 MiB per iteration = 4.00 MiB, created there and never freed". */
export function describeLeak(r: LeakReport): string[] {
  const n = Math.max(0, r.boundaries.length);
  if (r.tolerated) return [`Steady growth of ${projection(r)}, below the tolerated minimum (${n} iterations, ${r.basis}).`];
  if (!r.leaking)
    return [
      `No leak: live memory changes by ${formatBytes(r.bytesPerIteration)} per iteration over ${n} iteration${n === 1 ? '' : 's'} (${r.basis}).`,
    ];
  return [
    `Live memory grows steadily by ${projection(r)} (${n} iterations, ${r.basis}; the last at event #${r.moment?.index ?? '?'}).`,
    ...r.lines
      .slice(0, 5)
      .map((l) => `  ${plain(l.file)}:${l.line} (${plain(l.name)}) keeps ${keepsPerIteration(l)}, created there and never freed`),
  ];
}
