import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { configFrom } from '../allocator/config';
import { NO_LIMIT } from '../allocator/limit';
import type { Limit } from '../allocator/limit';
import { predictAllocator } from '../allocator/predict';
import { formatBytes } from '../../shared/format';
import type { Snapshot } from '../snapshot/model';
import { checkpointPlan, reorder } from './checkpoint';
import type { CallSite } from './checkpoint';
import { requestedPeakWith } from './series';

export interface CheckpointPrediction {
  site: CallSite;
  calls: number;
  requestedPeak: number;
  reservedPeak: number | null;
  ooms: number;
  confidence: 'medium' | 'low';
  assumptions: string[];
}

/**
 * The run with the calls at `site` checkpointed (checkpoint.ts): the requested peak with their
 * activations made again in the backward, the reserved peak and OOMs from the allocator model of
 * the events in that order. Throws RangeError where nothing under the line is an activation.
 */
export function predictCheckpoint(s: Snapshot, a: DeviceAnalysis, site: CallSite, limit: Limit = NO_LIMIT): CheckpointPrediction {
  const plan = checkpointPlan(s, a, site);
  if (!plan.calls)
    throw new RangeError(
      `nothing in the trace was allocated under ${site.file}:${site.line} (give the line that calls the module to checkpoint, as its frames name it)`,
    );
  const e = a.replay.elements;
  const req = requestedPeakWith(e, a.replay.n, (k) => e.size[k]!, plan.moved);
  const p = predictAllocator(s, a.device, configFrom(s.allocatorSettings), limit, { order: reorder(a, plan.moved) });
  const assumptions = [
    `${plan.calls} call(s) of ${site.file}:${site.line} found (a call begins where the stack of the first allocation under it comes round again)`,
    `activations made again in the backward: ${formatBytes(plan.movedBytes)} in all; each call's output kept (the next call's input): ${formatBytes(plan.keptBytes)} in all`,
    "non-reentrant checkpointing assumed; the recomputation's own temporaries are not added, so the peak is a lower bound",
  ];
  if (!p.supported) assumptions.push(`no reserved figure: ${p.reason}`);
  return {
    site,
    calls: plan.calls,
    requestedPeak: req.bytes,
    reservedPeak: p.supported ? p.reservedPeak : null,
    ooms: p.supported ? p.ooms.length : 0,
    confidence: plan.movedBytes ? 'medium' : 'low',
    assumptions,
  };
}
