import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';
import type { Fitted } from './predict';
import { Role } from './roles';
import type { Roles } from './roles';

/** Each allocation of the trace in order, grouped by its Python stack (its code path, the same in any run). */
function byPath(s: Snapshot, a: DeviceAnalysis): Map<string, number[]> {
  const e = a.replay.elements;
  const keys = new Map<number, string>();
  const out = new Map<string, number[]>();
  const order = [...Array(e.count).keys()].filter((k) => e.origin[k] === Origin.Trace).sort((x, y) => e.alloc[x]! - e.alloc[y]!);
  for (const k of order) {
    const stack = e.stack[k]!;
    let key = keys.get(stack);
    if (key === undefined) {
      key = Array.from(s.stacks.get(stack))
        .filter((f) => a.classifier.kind(f) !== FrameKind.Cpp)
        .map((f) => `${s.frames.fileOf(f)}:${s.frames.lineOf(f)}:${s.frames.nameOf(f)}`)
        .join('|');
      keys.set(stack, key);
    }
    const list = out.get(key);
    if (list) list.push(k);
    else out.set(key, [k]);
  }
  return out;
}

/**
 * Two runs of the same script at different batches: the allocations of each code path paired in
 * order, and each pair's bytes taken as a line through the two (fixed where they are equal,
 * proportional where the line passes through zero, anything between). A path whose count differs
 * between the runs (data-dependent work) keeps the first run's roles. `ratio`: the second run's
 * batch (or sequence length) over the first's; `power`: sizes as powers of the scale (a sequence
 * length, where attention's scores grow with its square) instead of lines.
 */
export function fitTwoRuns(
  s: Snapshot,
  a: DeviceAnalysis,
  roles: Roles,
  s2: Snapshot,
  a2: DeviceAnalysis,
  ratio: number,
  power = false,
): Fitted {
  if (!(ratio > 0) || ratio === 1) throw new RangeError('the second run must be at another size (a ratio other than 1)');
  const e = a.replay.elements;
  const e2 = a2.replay.elements;
  const other = new Float64Array(e.count).fill(NaN);
  const second = byPath(s2, a2);
  for (const [key, ks] of byPath(s, a)) {
    const ks2 = second.get(key);
    if (ks2?.length === ks.length) ks.forEach((k, i) => (other[k] = e2.size[ks2[i]!]!));
  }
  let matched = 0;
  let total = 0;
  const peak = a.replay.peak.index;
  for (let k = 0; k < e.count; k++) {
    if (!(e.alloc[k]! <= peak && e.free[k]! > peak)) continue;
    total += e.size[k]!;
    if (!Number.isNaN(other[k]!) || e.origin[k] !== Origin.Trace) matched += e.size[k]!;
  }
  return {
    ratio,
    matchedShare: total ? matched / total : 1,
    sizeAt: (scale) => (k) => {
      const x = e.size[k]!;
      const y = other[k]!;
      if (e.origin[k] !== Origin.Trace) return x;
      if (Number.isNaN(y)) return roles.role[k] === Role.Batch ? Math.round(x * scale) : x;
      if (!power || !(x > 0 && y > 0)) return Math.max(0, Math.round(x + ((y - x) * (scale - 1)) / (ratio - 1)));
      // A sequence length: each size as a power of it (0 fixed, 1 linear, 2 attention's T×T), read off the pair.
      const p = Math.min(2, Math.max(0, Math.log(y / x) / Math.log(ratio)));
      return Math.round(x * scale ** p);
    },
  };
}
