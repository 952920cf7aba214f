import { statSync } from 'node:fs';
import { analyzeDevice, defaultDevice } from '../analysis/analyze';
import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { bestSnapshot, readRun } from '../run/runFolder';
import type { ProcessRun } from '../run/runFolder';
import { loadSnapshotFile } from '../snapshot/load';
import type { Snapshot } from '../snapshot/model';
import { SnapshotError } from '../errors';
import { ANY_FILE, ToolInputError } from './types';
import type { FileAccess } from './types';

export function str(args: Record<string, unknown>, key: string, required = true): string | undefined {
  const v = args[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v === '' || v.length > 4096) throw new ToolInputError(`"${key}" must be a path (a non-empty string)`);
  return v;
}

export function int(args: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new ToolInputError(`"${key}" must be an integer ≥ ${min}`);
  return v;
}

/** A positive number (a scale, GiB), or undefined when not given. */
export function num(args: Record<string, unknown>, key: string): number | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new ToolInputError(`"${key}" must be a positive number`);
  return v;
}

export interface Opened {
  snapshot: Snapshot;
  analysis: DeviceAnalysis;
  /** The snapshot file read (a run folder's best one). */
  file: string;
  /** The process's run folder, when a run folder was named. */
  process?: ProcessRun;
}

/**
 * A snapshot file, or a run folder (its process's best snapshot: the OOM's, else the peak's), on
 * the device asked for or the default one, when `files` allows it. Errors are ToolInputError with the reason.
 */
export async function openSource(path: string, device?: number, files: FileAccess = ANY_FILE): Promise<Opened> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ToolInputError(`no such file or folder: ${path}`);
  }
  let file = path;
  let process: ProcessRun | undefined;
  if (st.isDirectory()) {
    const run = readRun(path);
    process = run.processes.find((p) => bestSnapshot(p));
    if (!process) throw new ToolInputError(`the run folder ${path} holds no snapshot`);
    file = bestSnapshot(process)!.path;
  }
  files.check(file);
  const snapshot = await cachedLoad(file);
  const d = device ?? defaultDevice(snapshot);
  if (d === undefined || !snapshot.devices.includes(d))
    throw new ToolInputError(`${file} has no device ${d ?? ''} (it has: ${snapshot.devices.join(', ') || 'none'})`);
  // The analysis of a cached snapshot is kept with it (the leak detector's alone takes a second at 1M events).
  let byKey = analyses.get(snapshot);
  if (!byKey) analyses.set(snapshot, (byKey = new Map()));
  const key = `${d}\u0000${process?.dir ?? ''}`;
  let analysis = byKey.get(key);
  if (!analysis) byKey.set(key, (analysis = analyzeDevice(snapshot, d, undefined, process?.backward)));
  return { snapshot, analysis, file, process };
}

/**
 * The last snapshots read, by path, size and mtime: an assistant asks several tools about one file
 * in a row, and a million-event snapshot takes seconds to read. Two are kept (compare reads two).
 */
const cache: { key: string; snapshot: Promise<Snapshot> }[] = [];
const CACHED = 2;
const analyses = new WeakMap<Snapshot, Map<string, DeviceAnalysis>>();

function cachedLoad(file: string): Promise<Snapshot> {
  const st = statSync(file);
  const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
  const hit = cache.find((c) => c.key === key);
  if (hit) return hit.snapshot;
  const snapshot = loadSnapshotFile(file).catch((e: unknown) => {
    const i = cache.findIndex((c) => c.key === key);
    if (i >= 0) cache.splice(i, 1);
    if (e instanceof SnapshotError) throw new ToolInputError(`${file} is not a readable memory snapshot: ${e.message}`);
    throw e;
  });
  cache.unshift({ key, snapshot });
  cache.length = Math.min(cache.length, CACHED);
  return snapshot;
}

export const PATH_PROP = { type: 'string' as const, description: 'A memory snapshot (.pickle, .pickle.gz) or a Headroom run folder' };
export const DEVICE_PROP = {
  type: 'integer' as const,
  description: 'CUDA device index (default: the one with the most memory)',
  minimum: 0,
};
export const PAGE_PROP = { type: 'integer' as const, description: 'Page of a long answer (default 1)', minimum: 1 };
