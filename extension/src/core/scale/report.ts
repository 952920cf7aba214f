import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { Limit } from '../allocator/limit';
import { whatifContext } from '../allocator/whatif';
import type { Snapshot } from '../snapshot/model';
import { fitTwoRuns } from './fit';
import { maxBatch } from './maxBatch';
import type { MaxBatch } from './maxBatch';
import { predictScale } from './predict';
import type { Axis, ScalePrediction } from './predict';
import { scaleRoles } from './roles';

/** "What if the batch were …": one scale, or the largest batch under the limit less a margin. */
export type ScaleQuestion = { kind: 'scale'; scale: number; axis: Axis } | { kind: 'max'; margin: number };

/** A second run of the same script at another batch (or sequence length, as the question's axis): its size over the recorded one. */
export interface SecondRun {
  snapshot: Snapshot;
  analysis: DeviceAnalysis;
  ratio: number;
}

export interface ScaleReport {
  device: number;
  recorded: { requestedPeak: number; reservedPeak: number; batch: number | null; ooms: number };
  limit: Limit | null;
  limitFrom: string;
  predicted?: ScalePrediction;
  max?: MaxBatch & { margin: number; unit: 'batch' | 'scale' };
}

/** Thrown when the question cannot be answered from what was given (the CLI says it as a usage error). */
export class ScaleAskError extends Error {}

/**
 * One answer for `headroom whatif --batch…`, shared by every surface: the limit given, else the one
 * the recorded OOM shows; a second run, when given, fits each allocation's size instead of assuming.
 */
export function scaleReport(
  s: Snapshot,
  a: DeviceAnalysis,
  q: ScaleQuestion,
  given?: Limit,
  recordedBatch?: number,
  second?: SecondRun,
): ScaleReport {
  const ctx = whatifContext(s, a, given);
  const roles = scaleRoles(s, a, recordedBatch);
  const axis = q.kind === 'scale' ? q.axis : 'batch';
  const fit = second ? fitTwoRuns(s, a, roles, second.snapshot, second.analysis, second.ratio, axis === 'seq') : undefined;
  const base = {
    device: a.device,
    recorded: {
      requestedPeak: a.replay.peak.requestedBytes,
      reservedPeak: a.replay.reservedPeak.bytes,
      batch: recordedBatch ?? null,
      ooms: a.ooms.length,
    },
    limit: ctx.limit,
    limitFrom: ctx.limitFrom,
  };
  if (q.kind === 'scale') {
    if (!(q.scale > 0) || !Number.isFinite(q.scale)) throw new ScaleAskError(`a batch scale must be a positive number, got ${q.scale}`);
    return {
      ...base,
      predicted: predictScale(s, a, roles, q.scale, { axis, ...(ctx.limit ? { limit: ctx.limit } : {}), ...(fit ? { fit } : {}) }),
    };
  }
  if (!ctx.limit)
    throw new ScaleAskError(
      'the largest batch needs the memory it must fit (the device’s size or a cap): this run had no OOM to read it from',
    );
  if (!(q.margin >= 0 && q.margin < 1)) throw new ScaleAskError(`the margin must be a share from 0 to 1, got ${q.margin}`);
  const m = maxBatch(s, a, roles, ctx.limit, q.margin, recordedBatch, fit);
  return { ...base, max: { ...m, margin: q.margin, unit: recordedBatch ? 'batch' : 'scale' } };
}
