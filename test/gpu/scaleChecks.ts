// The batch / sequence predictions against reruns, shared by the GPU test (every capture
// capture/scale/run.sh makes) and the unit test (the committed ones): each workload's base
// recording predicts every other run of it (½×, 2×, 4× the batch; other sequence lengths), from one
// run and, where the 2× recording is there, from two; PyTorch's own peaks beside each.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { fitTwoRuns } from '../../extension/src/core/scale/fit';
import { predictScale } from '../../extension/src/core/scale/predict';
import { scaleRoles } from '../../extension/src/core/scale/roles';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';

/** What capture/scale/workloads.py writes beside each run. */
export interface ScaleRun {
  workload: string;
  batch: number;
  seq: number | null;
  ckpt: boolean;
  oom: boolean;
  requested_peak: number;
  reserved_peak: number;
}

export interface ScaleRow {
  workload: string;
  axis: 'batch' | 'seq';
  scale: number;
  model: 'one run' | 'two runs';
  requested: [predicted: number, rerun: number];
  reserved: [predicted: number, rerun: number];
}

const pickleOf = (dir: string, name: string) => [join(dir, `${name}.pickle`), join(dir, `${name}.pickle.gz`)].find((p) => existsSync(p));
const nameOf = (r: ScaleRun) => `${r.workload}-b${r.batch}${r.seq ? `-s${r.seq}` : ''}${r.ckpt ? '-ckpt' : ''}`;
export const relError = (x: [number, number]) => (x[0] - x[1]) / x[1];

/** Every run in `dir` that did not run out of memory. */
export function scaleRuns(dir: string): ScaleRun[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ScaleRun)
    .filter((r) => !r.oom);
}

/** Each workload's recorded batch, and its sequence length where runs at other lengths exist (run.sh's). */
export type Bases = Record<string, { batch: number; seq?: number }>;
export const TUNED: Bases = {
  gpt: { batch: 16, seq: 256 },
  t5: { batch: 16, seq: 128 },
  vit: { batch: 32 },
  resnet: { batch: 32 },
  detection: { batch: 4 },
  lightning: { batch: 16 },
};
export const HELDOUT: Bases = {
  llama: { batch: 8, seq: 256 },
  bert: { batch: 16 },
  convnext: { batch: 32 },
  mobilenet: { batch: 32 },
  hf_trainer: { batch: 8 },
};

/** The rows of `dir`: each run predicted from its workload's base recording, from one run and from two where the second is there. */
export async function scaleRows(dir: string, bases: Bases): Promise<ScaleRow[]> {
  const runs = scaleRuns(dir);
  const rows: ScaleRow[] = [];
  for (const [w, base] of Object.entries(bases)) {
    const mine = runs.filter((r) => r.workload === w && !r.ckpt);
    const first = mine.find((r) => r.batch === base.batch && !r.seq);
    const path = first && pickleOf(dir, nameOf(first));
    if (!path) continue;
    const s = await loadSnapshotFile(path);
    const a = analyzeDevice(s, 0);
    const roles = scaleRoles(s, a);
    const second = async (r: ScaleRun | undefined, power: boolean) => {
      const p = r && pickleOf(dir, nameOf(r));
      if (!p) return undefined;
      const s2 = await loadSnapshotFile(p);
      return fitTwoRuns(s, a, roles, s2, analyzeDevice(s2, 0), 2, power);
    };
    const fits = {
      batch: await second(
        mine.find((r) => r.batch === 2 * base.batch && !r.seq),
        false,
      ),
      seq: base.seq
        ? await second(
            mine.find((r) => r.batch === base.batch && r.seq === 2 * base.seq!),
            true,
          )
        : undefined,
    };
    for (const r of mine) {
      if (r === first || (r.seq && (r.batch !== base.batch || !base.seq))) continue;
      const axis = r.seq ? 'seq' : 'batch';
      const scale = r.seq ? r.seq / base.seq! : r.batch / base.batch;
      const fit = fits[axis];
      for (const f of fit && scale !== fit.ratio ? [undefined, fit] : [undefined]) {
        const p = predictScale(s, a, roles, scale, { axis, ...(f ? { fit: f } : {}) });
        rows.push({
          workload: w,
          axis,
          scale,
          model: p.model,
          requested: [p.requestedPeak, r.requested_peak],
          reserved: [p.reservedPeak ?? NaN, r.reserved_peak],
        });
      }
    }
  }
  return rows;
}

const median = (xs: number[]) => {
  const v = [...xs].sort((x, y) => x - y);
  return v.length ? (v[(v.length - 1) >> 1]! + v[v.length >> 1]!) / 2 : NaN;
};

/** Median and worst absolute error of the requested and reserved peaks, as fractions. */
export function scaleErrors(rows: readonly ScaleRow[]) {
  const req = rows.map((r) => Math.abs(relError(r.requested)));
  const res = rows.map((r) => Math.abs(relError(r.reserved)));
  return {
    n: rows.length,
    requestedMedian: median(req),
    requestedWorst: Math.max(0, ...req),
    reservedMedian: median(res),
    reservedWorst: Math.max(0, ...res),
  };
}

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(2)} %`;
const gb = (x: number) => (x / 1e9).toFixed(3);

/** The table for docs/scale-prediction.md: every case, predicted beside measured. */
export function scaleTable(rows: readonly ScaleRow[]): string {
  const head =
    '| workload | scaled | × | from | requested predicted (GB) | rerun | error | reserved predicted | rerun | error |\n|---|---|---|---|---|---|---|---|---|---|';
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${r.axis} | ${r.scale} | ${r.model} | ${gb(r.requested[0])} | ${gb(r.requested[1])} | ${pct(relError(r.requested))} | ${gb(r.reserved[0])} | ${gb(r.reserved[1])} | ${pct(relError(r.reserved))} |`,
    ),
  ].join('\n');
}
