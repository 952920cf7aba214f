// Checkpointing predicted from a plain run against the checkpointed rerun (capture/scale/run.sh's
// gpt and vit with --ckpt): the site is the line that calls each block, read where the run's
// frames name it (workloads.py's loop for the GPT; nn.Sequential's forward for timm's blocks).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { predictCheckpoint } from '../../extension/src/core/scale/checkpointPredict';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import type { Bases } from './scaleChecks';
import { relError } from './scaleChecks';

export interface CheckpointRow {
  workload: string;
  site: string;
  requested: [predicted: number, rerun: number];
  reserved: [predicted: number, rerun: number];
}

/** The line of the first frame in `file` (path end) running `name`: where a library calls each block. */
function frameLine(s: Snapshot, file: string, name: string): number {
  for (let f = 0; f < s.frames.size; f++) if (s.frames.fileOf(f).endsWith(file) && s.frames.nameOf(f) === name) return s.frames.lineOf(f);
  throw new Error(`no frame of ${name} in ${file}`);
}

/** `workloads`: capture/scale/workloads.py, whose loop line is the GPT's site. */
export async function checkpointRows(dir: string, bases: Bases, workloads: string): Promise<CheckpointRow[]> {
  const rows: CheckpointRow[] = [];
  const loop =
    readFileSync(workloads, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('torch.utils.checkpoint.checkpoint(b, x')) + 1;
  for (const w of ['gpt', 'vit']) {
    const b = bases[w]!.batch;
    const s = await loadSnapshotFile(join(dir, `${w}-b${b}.pickle.gz`));
    const site =
      w === 'gpt'
        ? { file: 'workloads.py', line: loop }
        : { file: 'torch/nn/modules/container.py', line: frameLine(s, 'torch/nn/modules/container.py', 'forward') };
    const p = predictCheckpoint(s, analyzeDevice(s, 0), site);
    const rerun = JSON.parse(readFileSync(join(dir, `${w}-b${b}-ckpt.json`), 'utf8')) as { requested_peak: number; reserved_peak: number };
    rows.push({
      workload: w,
      site: `${site.file}:${site.line}`,
      requested: [p.requestedPeak, rerun.requested_peak],
      reserved: [p.reservedPeak ?? NaN, rerun.reserved_peak],
    });
  }
  return rows;
}

export function checkpointTable(rows: readonly CheckpointRow[]): string {
  const pct = (x: [number, number]) => `${(relError(x) * 100).toFixed(2)} %`;
  return [
    '| workload | checkpointed calls at | requested predicted | rerun | error | reserved predicted | rerun | error |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${r.site} | ${r.requested[0]} | ${r.requested[1]} | ${pct(r.requested)} | ${r.reserved[0]} | ${r.reserved[1]} | ${pct(r.reserved)} |`,
    ),
  ].join('\n');
}
