import { statSync } from 'node:fs';
import { readSideRecords, SIDE_LIMITS } from '../safeFile';

// gpu-at-oom.jsonl as the doctor reads it (atOom.ts writes it and asks).

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export type Procs = { pid: number; used: number | null }[];

/** A record with the types the doctor reads (the file may be anyone's), and the processes of its device. */
function parseReading(e: Record<string, unknown>): (Omit<Reading, 'i'> & { device: number }) | undefined {
  if (!isNum(e.t) || !isNum(e.device) || !Array.isArray(e.run) || !isObj(e.reading) || !Array.isArray(e.reading.devices)) return undefined;
  const d = e.reading.devices.find((x) => isObj(x) && x.index === e.device) as Record<string, unknown> | undefined;
  const procs = d && (Array.isArray(d.processes) ? d.processes : []).filter((q): q is Record<string, unknown> => isObj(q) && isNum(q.pid));
  return {
    t: e.t,
    device: e.device,
    run: e.run.filter(isNum),
    procs: procs?.map((q) => ({ pid: q.pid as number, used: isNum(q.used) ? q.used : null })),
  };
}

/** A reading: its place in the file (the earlier wins a tie), the run's pids, the device's processes. */
export interface Reading {
  i: number;
  t: number;
  run: number[];
  procs: Procs | undefined;
}

/** One folder's readings by device, in file order, with the order of their times for the nearest one. */
type Readings = Map<number, { all: Reading[]; byTime: Reading[] }>;

// Each OOM of a snapshot asks for its nearest reading: the file (up to 64 MiB) is read once per
// version (its identity, size and time), not once per OOM (issue 39). A few folders are kept.
const cache = new Map<string, { version: string; readings: Readings }>();
const CACHED = 4;

function readingsIn(path: string, dir: string): Readings {
  let version: string;
  try {
    const st = statSync(path);
    version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return new Map();
  }
  const hit = cache.get(path);
  if (hit?.version === version) return hit.readings;
  const readings: Readings = new Map();
  try {
    // A regular file inside that folder, read a line at a time under a cap (it comes with the folder).
    for (const o of readSideRecords(path, { root: dir, maxBytes: SIDE_LIMITS.gpuAtOom, maxLine: SIDE_LIMITS.line })) {
      const e = parseReading(o);
      if (!e) continue;
      let d = readings.get(e.device);
      if (!d) readings.set(e.device, (d = { all: [], byTime: [] }));
      d.all.push({ ...e, i: d.all.length });
    }
  } catch {
    // missing or refused: the readings before the failure
  }
  // Stable: equal times keep file order, so the first of them is the one a scan would have kept.
  for (const d of readings.values()) d.byTime = [...d.all].sort((x, y) => x.t - y.t);
  cache.delete(path);
  cache.set(path, { version, readings });
  if (cache.size > CACHED) cache.delete(cache.keys().next().value!);
  return readings;
}

/** The first reading at or after t in time order (xs.length: none). */
function firstAtOrAfter(xs: readonly Reading[], t: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]!.t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The reading nearest the time (the earlier in the file on a tie), else the file's first. */
function nearest(d: { all: Reading[]; byTime: Reading[] }, t: number | null): Reading | undefined {
  if (t === null) return d.all[0];
  const xs = d.byTime;
  const lo = firstAtOrAfter(xs, t);
  // The first at or after t; the first of the latest before it.
  const after = xs[lo];
  const before = lo > 0 ? xs[firstAtOrAfter(xs, xs[lo - 1]!.t)] : undefined;
  if (!before || !after) return before ?? after;
  const db = t - before.t;
  const da = after.t - t;
  if (db !== da) return db < da ? before : after;
  return before.i < after.i ? before : after;
}

/** The reading of `device` nearest the time in a folder's file (`path`, inside `root`), read once per version. */
export function nearestReading(path: string, root: string, device: number, t: number | null): Reading | undefined {
  const d = readingsIn(path, root).get(device);
  return d && nearest(d, t);
}
