import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { analyzeDevice } from '../analysis/analyze';
import { SnapshotError } from '../errors';
import type { OomMessage } from '../oom/types';
import { deviceFactsBeside } from '../run/deviceFacts';
import { runFolders } from '../run/processes';
import { readRun } from '../run/runFolder';
import { loadSnapshotFile } from '../snapshot/load';
import type { ExplainedOom } from './explainText';
import { diagnoseSnapshot } from './oom';
import type { OomDiagnosis } from './oom';

/** An OOM a Headroom run took a snapshot of: the agent's figures, which the message prints too. */
export interface RunOom {
  snapshot: string;
  device: number;
  request: number;
  free: number;
}

/** The OOMs of a run (any of its process folders, or a snapshot in one), each paired with the snapshot taken at it. */
export function runOoms(path: string): RunOom[] {
  const out: RunOom[] = [];
  const dir = isFile(path) ? dirname(path) : path;
  const run = readRun(dir, { samples: 'none' });
  if (!run.processes.length) throw new SnapshotError('io', `${dir} is not a Headroom run folder (no meta.json, samples or snapshots)`);
  for (const p of run.processes) {
    const files = new Map(p.snapshots.map((s) => [basename(s.path), s.path]));
    let pending: Omit<RunOom, 'snapshot'> | undefined;
    for (const e of p.events) {
      if (e.event === 'oom' && typeof e.alloc === 'number' && typeof e.device_free === 'number')
        pending = { device: typeof e.device === 'number' ? e.device : 0, request: e.alloc, free: e.device_free };
      if (e.event === 'snapshot' && e.kind === 'oom' && pending && typeof e.path === 'string') {
        const path = files.get(basename(e.path));
        if (path) out.push({ snapshot: path, ...pending });
        pending = undefined;
      }
    }
  }
  return out;
}

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

// The message prints two decimals of its unit: within 0.5 %, plus the rounding of a small figure.
const near = (printed: number, exact: number) => Math.abs(printed - exact) <= exact * 0.005 + 5 * 1024;

/** The run's OOM this message reports: same device, same request, same free memory. */
export function matchOom<T extends RunOom>(m: OomMessage, ooms: readonly T[]): T | undefined {
  const q = m.triedBytes ?? m.requestedBytes;
  if (q === undefined || m.freeBytes === undefined) return undefined;
  return ooms.find((o) => (m.device === undefined || m.device === o.device) && near(q, o.request) && near(m.freeBytes!, o.free));
}

/**
 * Where a run recorded the same OOM, its snapshot's evidence (segments, live tensors, lines)
 * replaces the message's reading; the message's figures stay beside it.
 */
export async function withRunEvidence(found: ExplainedOom[], ...runDirs: string[]): Promise<ExplainedOom[]> {
  // One run named is read or refused; among several (an editor's runs folder), one that cannot be
  // read is passed over.
  const ooms = runDirs.flatMap((d) => {
    try {
      return runOoms(d).map((o) => ({ ...o, run: d }));
    } catch (e) {
      if (runDirs.length === 1) throw e;
      return [];
    }
  });
  // A log that repeats its OOM (each rank, each retry) reads the snapshot once.
  const read = new Map<RunOom, Promise<{ d: OomDiagnosis; index: number } | undefined>>();
  const out: ExplainedOom[] = [];
  for (const e of found) {
    const r = matchOom(e.message, ooms);
    if (!r) {
      out.push(e);
      continue;
    }
    if (!read.has(r)) read.set(r, snapshotDiagnosis(r));
    const got = await read.get(r)!;
    if (!got) {
      out.push(e);
      continue;
    }
    out.push({
      ...e,
      diagnosis: {
        ...got.d,
        ...(e.diagnosis.message ? { message: e.diagnosis.message } : {}),
        evidence: `${join(basename(r.run), basename(r.snapshot))}, the snapshot Headroom took at this OOM (event #${got.index})`,
      },
    });
  }
  return out;
}

/** The snapshot's own diagnosis of its OOM; none when it cannot be read or holds no OOM. */
async function snapshotDiagnosis(r: RunOom): Promise<{ d: OomDiagnosis; index: number } | undefined> {
  const s = await loadSnapshotFile(r.snapshot).catch(() => undefined);
  if (!s) return undefined;
  const a = analyzeDevice(s, r.device);
  // The trace's oom entry records the same cudaMemGetInfo free bytes as the agent's event.
  const oom = [...a.ooms].sort((x, y) => Math.abs(x.deviceFreeBytes - r.free) - Math.abs(y.deviceFreeBytes - r.free))[0];
  return oom ? { d: diagnoseSnapshot(s, a, oom, deviceFactsBeside(r.snapshot, r.device)), index: oom.index } : undefined;
}

/** The newest runs of a runs folder, where an editor looks for evidence. */
export const recentRuns = (runsRoot: string, max = 20): string[] =>
  runFolders(runsRoot)
    .slice(0, max)
    .map((n) => join(runsRoot, n));
