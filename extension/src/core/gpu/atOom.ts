import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runDirOf } from '../run/processes';
import { readSideRecords, SIDE_LIMITS } from '../safeFile';
import type { GpuProbe, GpuSnapshot } from './types';

/** The driver's view of the GPUs when a run's process ran out of memory: who else held the device. */
export interface GpuAtOom {
  /** The agent's OOM event time (µs since the epoch). */
  t: number;
  /** The torch device that ran out (NVML's index of the same number). */
  device: number;
  /** The run's own processes (every agent so far): not "other processes". */
  run: number[];
  reading: GpuSnapshot;
}

export const GPU_AT_OOM = 'gpu-at-oom.jsonl';

/**
 * Reads the GPUs and appends what they held to the run folder. Never throws: a driver that fails is
 * a missing line, not a broken run.
 */
export async function recordGpuAtOom(probe: GpuProbe, dir: string, at: Omit<GpuAtOom, 'reading'>): Promise<void> {
  try {
    const r = await probe.read();
    if (r.ok) appendFileSync(join(dir, GPU_AT_OOM), `${JSON.stringify({ ...at, reading: r.snapshot } satisfies GpuAtOom)}\n`);
  } catch {
    // the run folder went away, or the disk is full: the doctor does without
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** One record of gpu-at-oom.jsonl, kept only with the types the doctor reads (the file may be anyone's). */
function parseReading(e: Record<string, unknown>): GpuAtOom | undefined {
  if (!isNum(e.t) || !isNum(e.device) || !Array.isArray(e.run) || !isObj(e.reading) || !Array.isArray(e.reading.devices)) return undefined;
  const devices = e.reading.devices.filter(isObj).flatMap((d) =>
    isNum(d.index)
      ? [
          {
            ...d,
            index: d.index,
            processes: (Array.isArray(d.processes) ? d.processes : [])
              .filter((q): q is Record<string, unknown> => isObj(q) && isNum(q.pid))
              .map((q) => ({ pid: q.pid as number, used: isNum(q.used) ? q.used : null })),
          },
        ]
      : [],
  );
  return { t: e.t, device: e.device, run: e.run.filter(isNum), reading: { ...e.reading, devices } as unknown as GpuSnapshot };
}

/** Processes on the device that are not the run's, with what they held, from the reading nearest the OOM. */
export function othersAtOom(snapshotPath: string, device: number, oomTimeUs: number | null): { pid: number; used: number | null }[] {
  let best: GpuAtOom | undefined;
  // A process's folder (<run>-rank<r>, <run>-pid<p>) sits beside the run's, where the reading is kept.
  const own = dirname(snapshotPath);
  for (const dir of new Set([own, runDirOf(own)])) {
    try {
      // A regular file inside that folder, read a line at a time under a cap (it comes with the folder).
      for (const o of readSideRecords(join(dir, GPU_AT_OOM), { root: dir, maxBytes: SIDE_LIMITS.gpuAtOom, maxLine: SIDE_LIMITS.line })) {
        const e = parseReading(o);
        if (e?.device !== device) continue;
        if (!best || (oomTimeUs !== null && Math.abs(e.t - oomTimeUs) < Math.abs(best.t - oomTimeUs))) best = e;
      }
    } catch {
      // missing or refused: no reading from this folder
    }
    if (best) break;
  }
  const gpu = best?.reading.devices.find((d) => d.index === device);
  // In a container with its own pid namespace the driver's pids are not the agents': with none of
  // the run's pids listed, the run's own process cannot be told from the others, so none is named.
  if (!gpu || !gpu.processes.some((p) => best!.run.includes(p.pid))) return [];
  return gpu.processes.filter((p) => !best!.run.includes(p.pid));
}
