import type { ScalePrediction } from '../core/scale/predict';
import type { CheckpointPrediction } from '../core/scale/checkpointPredict';
import type { ScaleReport } from '../core/scale/report';
import { jsonText } from '../shared/text';

// `headroom whatif --batch… / --seq-scale / --max-batch --json`: snake_case, bytes as integers (the text is core/scale/text.ts).

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
    recorded: {
      requested_peak_bytes: r.recorded.requestedPeak,
      reserved_peak_bytes: r.recorded.reservedPeak,
      batch: rec,
      ooms: r.recorded.ooms,
    },
    ...(r.predicted ? { predicted: predictedJson(r.predicted, rec) } : {}),
    ...(r.max
      ? {
          max_batch: { best: r.max.best, unit: r.max.unit, margin: r.max.margin, room_bytes: r.max.room },
          predicted: r.max.at && predictedJson(r.max.at, rec),
          next: r.max.next && predictedJson(r.max.next, rec),
        }
      : {}),
  };
}

export function checkpointJson(x: CheckpointPrediction, requestedPeak: number, reservedPeak: number) {
  return {
    recorded: { requested_peak_bytes: requestedPeak, reserved_peak_bytes: reservedPeak },
    predicted: {
      checkpoint: `${x.site.file}:${x.site.line}`,
      calls: x.calls,
      requested_peak_bytes: x.requestedPeak,
      reserved_peak_bytes: x.reservedPeak,
      ooms: x.ooms,
      confidence: x.confidence,
      assumptions: x.assumptions,
    },
  };
}

/** `--json`'s text: escaped for the terminal by jsonText, as every JSON the CLI prints. */
export const scaleJsonText = (r: ScaleReport): string => jsonText(scaleJson(r)) + '\n';
