import { dirname, join } from 'node:path';
import { othersAtOom } from '../gpu/atOom';
import { readSideRecords, SIDE_LIMITS } from '../safeFile';

/**
 * The device's total memory as CUDA reported it during the run a snapshot belongs to (the agent's
 * OOM events and samples carry it), when the snapshot sits in a Headroom run folder. A snapshot
 * alone records how much was free at an OOM but not of how much: with the total, what lies
 * outside PyTorch's allocator at that instant follows.
 */
export function deviceTotalBeside(snapshotPath: string, device: number): number | undefined {
  const dir = dirname(snapshotPath);
  for (const [file, wanted, cap] of [
    ['events.jsonl', (m: Record<string, unknown>) => m.event === 'oom', SIDE_LIMITS.events],
    ['samples.jsonl', () => true, SIDE_LIMITS.samples],
  ] as const) {
    let total: number | undefined;
    for (const m of records(join(dir, file), cap))
      if (m.device === device && Number.isSafeInteger(m.device_total) && (m.device_total as number) > 0 && wanted(m))
        total = m.device_total as number;
    if (total !== undefined) return total;
  }
  return undefined;
}

/** The records of a side file beside the snapshot (a link to /dev/zero or a FIFO yields nothing). */
function* records(path: string, maxBytes: number): Generator<Record<string, unknown>> {
  try {
    yield* readSideRecords(path, { root: dirname(path), maxBytes, maxLine: SIDE_LIMITS.line });
  } catch {
    // missing or refused: no records
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
