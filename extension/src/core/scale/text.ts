import { formatBytes as b } from '../../shared/format';
import type { CheckpointPrediction } from './checkpointPredict';
import type { ScalePrediction } from './predict';
import type { ScaleReport } from './report';

const line = (x: ScalePrediction, rec: number | null) =>
  `${rec && x.axis === 'batch' ? `batch ${Math.round(x.scale * rec * 1000) / 1000}` : `${x.scale}× the ${x.axis === 'seq' ? 'sequence length' : 'batch'}`}: requested peak ${b(x.requestedPeak)}, reserved peak ${x.reservedPeak === null ? 'not predicted' : b(x.reservedPeak)}${x.ooms ? ` until it runs out: OOM (${x.ooms} request(s) not served)` : ''} (${x.model}, confidence ${x.confidence})`;

/** The answer to a batch or sequence question in lines: `headroom whatif --batch…` and the assistants' tool. */
export function scaleText(r: ScaleReport): string {
  const rec = r.recorded.batch;
  const out = [
    `device ${r.device}, recorded${rec ? ` at batch ${rec}` : ''}: requested peak ${b(r.recorded.requestedPeak)}, reserved peak ${b(r.recorded.reservedPeak)}; limit ${r.limit ? `${b(r.limit.bytes)} (${r.limitFrom})` : 'none'}`,
  ];
  const x = r.predicted ?? r.max?.at ?? r.max?.next;
  if (r.max)
    out.push(
      r.max.best
        ? `largest ${r.max.unit === 'batch' ? `batch: ${r.max.best}` : `scale: ${r.max.best}× the recorded batch`}, under ${b(r.max.room)} (the limit less ${Math.round(r.max.margin * 100)} %)${r.recorded.ooms ? '; at most: the run stopped at its OOM' : ''}`
        : `no batch fits under ${b(r.max.room)}: not ${r.max.unit === 'batch' ? 'batch 1' : 'a sixteenth of the recorded batch'} either`,
    );
  if (r.max?.at) out.push(`  ${line(r.max.at, rec)}`);
  if (r.max?.next) out.push(`  next: ${line(r.max.next, rec)}`);
  if (r.predicted) out.push(line(r.predicted, rec));
  if (x) out.push('assumed:', ...x.assumptions.map((a) => `  - ${a}`));
  return out.join('\n') + '\n';
}

/** The answer to a checkpointing question in lines. */
export function checkpointText(x: CheckpointPrediction, requestedPeak: number, reservedPeak: number): string {
  const pct = (p: number, r: number) => (r > 0 ? ` (${p <= r ? '−' : '+'}${Math.abs(Math.round(((p - r) / r) * 100))} %)` : '');
  return (
    [
      `checkpointing the calls at ${x.site.file}:${x.site.line}: requested peak ${b(x.requestedPeak)}${pct(x.requestedPeak, requestedPeak)}, reserved peak ${x.reservedPeak === null ? 'not predicted' : b(x.reservedPeak) + pct(x.reservedPeak, reservedPeak)}${x.ooms ? `, OOM (${x.ooms} request(s) not served)` : ''} (confidence ${x.confidence})`,
      `recorded: requested peak ${b(requestedPeak)}, reserved peak ${b(reservedPeak)}`,
      'assumed:',
      ...x.assumptions.map((a) => `  - ${a}`),
    ].join('\n') + '\n'
  );
}
