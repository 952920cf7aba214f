import { formatBytes as b } from '../core/format';
import type { ScalePrediction } from '../core/scale/predict';
import type { ScaleReport } from '../core/scale/report';

// `headroom whatif --batch… / --seq-scale / --max-batch`: its --json (snake_case, bytes as integers) and its text.

const predictedJson = (x: ScalePrediction, recorded: number | null) => ({
  axis: x.axis,
  scale: x.scale,
  ...(recorded && x.axis === 'batch' ? { batch: Math.round(x.scale * recorded * 1000) / 1000 } : {}),
  requested_peak_bytes: x.requestedPeak,
  reserved_peak_bytes: x.reservedPeak,
  ooms: x.ooms,
  model: x.model,
  confidence: x.confidence,
  assumptions: x.assumptions,
});

/** At least {"predicted": {"requested_peak_bytes", "reserved_peak_bytes", "assumptions"}}; --max-batch adds max_batch and next. */
export function scaleJson(r: ScaleReport) {
  const rec = r.recorded.batch;
  return {
    device: r.device,
    limit_bytes: r.limit?.bytes ?? null,
    limit_is_cap: r.limit?.cap ?? null,
    limit_from: r.limitFrom,
    recorded: { requested_peak_bytes: r.recorded.requestedPeak, reserved_peak_bytes: r.recorded.reservedPeak, batch: rec },
    ...(r.predicted ? { predicted: predictedJson(r.predicted, rec) } : {}),
    ...(r.max ? { max_batch: { best: r.max.best, unit: r.max.unit, margin: r.max.margin, room_bytes: r.max.room }, predicted: r.max.at && predictedJson(r.max.at, rec), next: r.max.next && predictedJson(r.max.next, rec) } : {}),
  };
}

const line = (x: ScalePrediction, rec: number | null) =>
  `${rec && x.axis === 'batch' ? `batch ${Math.round(x.scale * rec * 1000) / 1000}` : `${x.scale}× the ${x.axis === 'seq' ? 'sequence length' : 'batch'}`}: requested peak ${b(x.requestedPeak)}, reserved peak ${x.reservedPeak === null ? 'not predicted' : b(x.reservedPeak)}${x.ooms ? `, OOM (${x.ooms} request(s) not served)` : ''} (${x.model}, confidence ${x.confidence})`;

export function scaleText(r: ScaleReport): string {
  const rec = r.recorded.batch;
  const out = [`device ${r.device}, recorded${rec ? ` at batch ${rec}` : ''}: requested peak ${b(r.recorded.requestedPeak)}, reserved peak ${b(r.recorded.reservedPeak)}; limit ${r.limit ? `${b(r.limit.bytes)} (${r.limitFrom})` : 'none'}`];
  const x = r.predicted ?? r.max?.at ?? r.max?.next;
  if (r.max) out.push(r.max.best ? `largest ${r.max.unit === 'batch' ? `batch: ${r.max.best}` : `scale: ${r.max.best}× the recorded batch`}, under ${b(r.max.room)} (the limit less ${Math.round(r.max.margin * 100)} %)` : `no batch fits under ${b(r.max.room)}: the fixed part alone does not`);
  if (r.max?.at) out.push(`  ${line(r.max.at, rec)}`);
  if (r.max?.next) out.push(`  next: ${line(r.max.next, rec)}`);
  if (r.predicted) out.push(line(r.predicted, rec));
  if (x) out.push('assumed:', ...x.assumptions.map((a) => `  - ${a}`));
  return out.join('\n') + '\n';
}

