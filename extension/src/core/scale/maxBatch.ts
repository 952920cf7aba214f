import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { Limit } from '../allocator/limit';
import type { Snapshot } from '../snapshot/model';
import { predictScale } from './predict';
import type { Fitted, ScalePrediction } from './predict';
import type { Roles } from './roles';

export interface MaxBatch {
  /** The largest batch (recorded batch known) or scale (else, in sixteenths) predicted to fit; 0: none. */
  best: number;
  /** Its prediction, and the next step's (the first that does not fit). */
  at: ScalePrediction | null;
  next: ScalePrediction | null;
  /** The limit less the margin: what the predictions had to stay under. */
  room: number;
}

const MAX_STEPS = 1 << 20;

/**
 * The largest batch whose predicted run the allocator model serves under the limit less a margin
 * (a share of it kept back: what the model does not see, such as another run's timing of frees).
 * Assumes more batch never needs less memory; `recordedBatch` counts in whole batches, else the
 * answer is a scale in sixteenths of the recorded batch.
 */
export function maxBatch(
  s: Snapshot,
  a: DeviceAnalysis,
  roles: Roles,
  limit: Limit,
  margin: number,
  recordedBatch?: number,
  fit?: Fitted,
): MaxBatch {
  const search = maxBatchSearch(s, a, roles, limit, margin, recordedBatch, fit);
  for (;;) {
    const r = search.next();
    if (r.done) return r.value;
  }
}

/** The same search one prediction at a time: the editor gives the event loop back between them. */
export function* maxBatchSearch(
  s: Snapshot,
  a: DeviceAnalysis,
  roles: Roles,
  limit: Limit,
  margin: number,
  recordedBatch?: number,
  fit?: Fitted,
): Generator<void, MaxBatch> {
  const room = Math.floor(limit.bytes * (1 - margin));
  const under: Limit = { bytes: room, cap: limit.cap };
  const unit = recordedBatch ? 1 / recordedBatch : 1 / 16;
  const tried = new Map<number, ScalePrediction>();
  const at = (steps: number): ScalePrediction => {
    let p = tried.get(steps);
    if (!p) tried.set(steps, (p = predictScale(s, a, roles, steps * unit, { limit: under, ...(fit ? { fit } : {}) })));
    return p;
  };
  const fits = (p: ScalePrediction) => p.ooms === 0 && (p.reservedPeak ?? p.requestedPeak) <= room;
  yield;
  if (!fits(at(1))) return { best: 0, at: null, next: at(1), room };
  let lo = 1;
  let hi = 2;
  for (;;) {
    yield;
    if (hi >= MAX_STEPS || !fits(at(hi))) break;
    [lo, hi] = [hi, hi * 2];
  }
  if (hi >= MAX_STEPS && fits(at(hi))) return { best: recordedBatch ? hi : hi / 16, at: at(hi), next: null, room };
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    yield;
    if (fits(at(mid))) lo = mid;
    else hi = mid;
  }
  return { best: recordedBatch ? lo : lo / 16, at: at(lo), next: at(hi), room };
}
