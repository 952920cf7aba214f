import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Origin } from '../analysis/replay';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases } from '../timeline/categories';
import { eventAt } from '../timeline/eventAt';

export type LeakBasis = 'optimizer step' | 'backward' | 'repeating line';

/**
 * Iteration boundaries from the run's structure: the outermost repeating unit of work. Growth is
 * measured only there, so what a step builds and frees before the next one (activations saved for
 * backward, a layer loop inside forward) is never taken for a leak.
 */
/** Where each of the trace's loops starts an iteration: one candidate per number of passes. */
function loopsByLine(s: Snapshot, a: DeviceAnalysis, min: number): number[][] {
  const e = a.replay.elements;
  const order = Array.from({ length: e.count }, (_, k) => k)
    .filter((k) => e.origin[k] === Origin.Trace)
    .sort((x, y) => e.alloc[x]! - e.alloc[y]!);
  const byLine = new Map<string, number[]>();
  let previous = '';
  for (const k of order) {
    const f = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
    const key = f < 0 ? '' : `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}`;
    // One visit per run of allocations from the same line (a forward allocates several tensors).
    // Pushed in place: copying the list per visit was quadratic in a line's visits (issue 39).
    if (key && key !== previous) {
      const visits = byLine.get(key);
      if (visits) visits.push(e.alloc[k]!);
      else byLine.set(key, [e.alloc[k]!]);
    }
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
    if (i <= 0 || i >= n) continue;
    const at = byName.get(an.name);
    if (at) at.push(i - 1);
    else byName.set(an.name, [i - 1]);
  }
  return [...byName.values()].filter((at) => at.length >= min);
}

/** A loop whose passes rarely straddle a training boundary runs beside training (an eval loop). */
function besideTraining(at: readonly number[], training: readonly number[]): boolean {
  if (!training.length) return true;
  let straddling = 0;
  let j = 0;
  for (let i = 1; i < at.length; i++) {
    while (j < training.length && training[j]! <= at[i - 1]!) j++;
    if (j < training.length && training[j]! < at[i]!) straddling++;
  }
  return straddling <= 0.1 * (at.length - 1);
}

/** Loops that run inside another (fewer passes, overlapping span) are not iterations of their own. */
function outermost(loops: number[][]): number[][] {
  const byPasses = [...loops].sort((x, y) => x.length - y.length);
  const kept: number[][] = [];
  for (const l of byPasses) if (!kept.some((k) => k[0]! <= l.at(-1)! && l[0]! <= k.at(-1)!)) kept.push(l);
  return kept;
}

/**
 * Optimizer steps when there are any (one series per optimizer: a GAN's two run in step, the first
 * is taken), else the ends of backward passes (gradient accumulation: each micro-step), then loops
 * that run beside training or, without training, the outermost loops (an eval-only script).
 */
export function iterationBoundaries(s: Snapshot, a: DeviceAnalysis, min: number, force?: LeakBasis): { basis: LeakBasis; at: number[] }[] {
  const n = a.replay.n;
  const out: { basis: LeakBasis; at: number[] }[] = [];
  const steps = !force || force === 'optimizer step' ? optimizerSteps(s, a, min).sort((x, y) => y.length - x.length || x[0]! - y[0]!) : [];
  if (steps[0]) out.push({ basis: 'optimizer step', at: steps[0] });
  // A backward pass still open when the trace ends is no finished iteration (and the run's own
  // teardown frees follow it).
  const ends = [...backwardPhases(s, a).end].filter((i) => i < n).map((i) => i - 1);
  if ((force === 'backward' || (!force && !out.length)) && ends.length >= min) out.push({ basis: 'backward', at: ends });
  if (force && force !== 'repeating line') return out;
  const training = out[0]?.at ?? (force ? [] : ends);
  const loops = loopsByLine(s, a, min).filter((l) => besideTraining(l, training));
  for (const at of outermost(loops)) out.push({ basis: 'repeating line', at });
  return out;
}
