import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runDirOf } from '../run/processes';
import { nearestReading } from './atOomRead';
import type { Procs, Reading } from './atOomRead';
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

/** Processes on the device that are not the run's, with what they held, from the reading nearest the OOM. */
export function othersAtOom(snapshotPath: string, device: number, oomTimeUs: number | null): Procs {
  let best: Reading | undefined;
  // A process's folder (<run>-rank<r>, <run>-pid<p>) sits beside the run's, where the reading is kept.
  const own = dirname(snapshotPath);
  for (const dir of new Set([own, runDirOf(own)])) {
    best = nearestReading(join(dir, GPU_AT_OOM), dir, device, oomTimeUs);
    if (best) break;
  }
  // In a container with its own pid namespace the driver's pids are not the agents': with none of
  // the run's pids listed, the run's own process cannot be told from the others, so none is named.
  const procs = best?.procs;
  if (!procs || !procs.some((p) => best!.run.includes(p.pid))) return [];
  return procs.filter((p) => !best!.run.includes(p.pid));
}
