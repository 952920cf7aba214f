import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { othersAtOom } from '../gpu/atOom';

/**
 * The device's total memory as CUDA reported it during the run a snapshot belongs to (the agent's
 * OOM events and samples carry it), when the snapshot sits in a Headroom run folder. A snapshot
 * alone records how much was free at an OOM but not of how much: with the total, what lies
 * outside PyTorch's allocator at that instant follows.
 */
export function deviceTotalBeside(snapshotPath: string, device: number): number | undefined {
  const dir = dirname(snapshotPath);
  for (const [file, wanted] of [['events.jsonl', (m: Record<string, unknown>) => m.event === 'oom'], ['samples.jsonl', () => true]] as const) {
    let total: number | undefined;
    for (const m of records(join(dir, file))) if (m.device === device && typeof m.device_total === 'number' && m.device_total > 0 && wanted(m)) total = m.device_total;
    if (total !== undefined) return total;
  }
  return undefined;
}

function* records(path: string): Generator<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    try {
      const m: unknown = JSON.parse(line);
      if (m && typeof m === 'object') yield m as Record<string, unknown>;
    } catch {
      // A torn last line (a killed process) or a blank one.
    }
  }
}

/**
 * What a snapshot in a run folder can learn about its device beyond the allocator. Read on demand:
 * only an OOM asks, and most snapshots have none.
 */
export interface DeviceFacts {
  total?: () => number | undefined;
  /** Other processes on the device near a time (µs), as the run recorded them at its OOMs. */
  othersAt?: (timeUs: number | null) => { pid: number; used: number | null }[];
}

export function deviceFactsBeside(snapshotPath: string, device: number): DeviceFacts {
  let total: { bytes: number | undefined } | undefined;
  return {
    total: () => (total ??= { bytes: deviceTotalBeside(snapshotPath, device) }).bytes,
    othersAt: (t) => othersAtOom(snapshotPath, device, t),
  };
}
