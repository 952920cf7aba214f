import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { liveAt } from '../analysis/replay';
import { configFrom } from '../allocator/config';
import { NO_LIMIT } from '../allocator/limit';
import type { Limit } from '../allocator/limit';
import { predictAllocator } from '../allocator/predict';
import { formatBytes } from '../../shared/format';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases } from '../timeline/categories';
import { REASONS, Role } from './roles';
import type { Roles } from './roles';
import { allocSizes, requestedPeakWith } from './series';
import type { SizeOf } from './series';

/** A per-allocation size at another scale from a second run (fit.ts); absent: one run's roles. */
export interface Fitted {
  sizeAt(scale: number): SizeOf;
  /** Share of the recorded peak's bytes whose size the two runs pinned down. */
  matchedShare: number;
  /** The second run's batch over the first's. */
  ratio: number;
}

/** What is scaled: the batch, or the sequence length (each sample's tokens). */
export type Axis = 'batch' | 'seq';

export interface ScaleOptions {
  limit?: Limit;
  fit?: Fitted;
  axis?: Axis;
}

export interface ScalePrediction {
  axis: Axis;
  /** The batch (or sequence length) over the recorded one. */
  scale: number;
  requestedPeak: number;
  /** The trace index the predicted peak follows (the recorded run's order of events). */
  peakIndex: number;
  /** From the allocator replay of the scaled requests; null where the allocator model cannot run. */
  reservedPeak: number | null;
  /** Requests the allocator model could not serve under the limit (none without a limit), the recorded OOM's own among them when it still fails. */
  ooms: number;
  model: 'one run' | 'two runs';
  confidence: 'high' | 'medium' | 'low';
  assumptions: string[];
}

/** The bytes at the recorded peak by reason: what the answer assumed, in the user's terms. */
function assumptionsOf(a: DeviceAnalysis, roles: Roles, fit: Fitted | undefined, axis: Axis): { lines: string[]; beforeShare: number } {
  const e = a.replay.elements;
  const by = new Float64Array(REASONS.length);
  let total = 0;
  for (const k of liveAt(e, a.replay.peak.index)) {
    const r = roles.reason[k]!;
    by[r] = by[r]! + e.size[k]!;
    total += e.size[k]!;
  }
  const what = axis === 'seq' ? 'the sequence length' : 'the batch';
  const lines = REASONS.map((r, i) =>
    by[i]! > 0 ? `${i === REASONS.length - 1 ? `scaled with ${what}` : 'fixed'}: ${r} (${formatBytes(by[i]!)} at the recorded peak)` : '',
  ).filter(Boolean);
  if (fit)
    lines.push(
      `sizes fitted per allocation from two runs (${Math.round(fit.matchedShare * 100)} % of the peak's bytes matched; the rest as one run)`,
    );
  else if (axis === 'seq')
    lines.push(
      "one run: what scales is assumed proportional to the sequence length, attention's scores too (they grow with its square where the model forms them, as eager attention does): a second run at another length fits each size",
    );
  else lines.push('one run: what scales is assumed proportional to the batch (a second run at another batch fits it instead)');
  lines.push('the recorded order of requests and frees is kept: the run does the same work at every batch');
  return { lines, beforeShare: total ? by[1]! / total : 0 };
}

/**
 * The run at `scale` times its batch: each allocation's bytes from its role (roles.ts) or from a
 * two-run fit, the requested peak by the replay's own accounting, the reserved peak and any OOM
 * under `limit` by the allocator replay (core/allocator) of the scaled requests.
 */
export function predictScale(s: Snapshot, a: DeviceAnalysis, roles: Roles, scale: number, o: ScaleOptions = {}): ScalePrediction {
  const { limit = NO_LIMIT, fit, axis = 'batch' } = o;
  const e = a.replay.elements;
  const sizeOf: SizeOf = fit ? fit.sizeAt(scale) : (k) => (roles.role[k] === Role.Batch ? Math.round(e.size[k]! * scale) : e.size[k]!);
  const req = requestedPeakWith(e, a.replay.n, sizeOf);
  const sizes = allocSizes(e, a.replay.n, sizeOf);
  // The request a recorded OOM could not serve is the iteration's too: it scales with the rest.
  for (const oom of a.ooms) sizes[oom.index] = Math.round(oom.requestedBytes * scale);
  const p = predictAllocator(s, a.device, configFrom(s.allocatorSettings), limit, { sizes });
  const { lines, beforeShare } = assumptionsOf(a, roles, fit, axis);
  const phases = backwardPhases(s, a).start.length;
  if (!p.supported) lines.push(`no reserved figure: ${p.reason}`);
  // Low: no backward pass to tell activations from state, or the run stopped at an OOM (the rest of
  // its iteration is not in the trace); medium: far from the recorded batch, much of the peak
  // predates the recording, or a second run matched little of it.
  const far = scale < 0.25 || scale > 8;
  const confidence =
    !phases || a.ooms.length
      ? 'low'
      : far || beforeShare > 0.25 || (fit && fit.matchedShare < 0.9) || (!fit && axis === 'seq')
        ? 'medium'
        : 'high';
  if (a.ooms.length)
    lines.push(
      'the recorded run stopped at an OOM: what its iteration would have done after it is not in the trace, so the peak is a lower bound',
    );
  if (!phases) lines.push('no backward pass found: activations cannot be told from state');
  return {
    axis,
    scale,
    requestedPeak: req.bytes,
    peakIndex: req.index,
    reservedPeak: p.supported ? p.reservedPeak : null,
    ooms: p.supported ? p.ooms.length : 0,
    model: fit ? 'two runs' : 'one run',
    confidence,
    assumptions: lines,
  };
}
