import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { diagnoseSnapshot } from '../../extension/src/core/diagnose/oom';
import { renderDiagnosis } from '../../extension/src/core/diagnose/oomText';
import { isSnapshotError } from '../../extension/src/core/errors';
import { buildReport } from '../../extension/src/core/report';
import { deviceFactsBeside } from '../../extension/src/core/run/deviceFacts';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile, parseSnapshot } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { mutate, rng } from './mutate';
import { RunFolderFuzz } from './runFolder';

export type Mode = 'pickle' | 'gz' | 'run';

interface Job {
  seeds: { name: string; bytes: Uint8Array }[];
  from: number;
  to: number;
  baseSeed: number;
  current: Int32Array;
  /** Set to 1 by the parent when its time budget is spent. */
  stop: Int32Array;
  modes: Mode[];
  scratch: string;
  baseRun: string;
}

const job = workerData as Job;
const scratch = join(job.scratch, `w${threadId}`);
mkdirSync(scratch, { recursive: true });
let runs: RunFolderFuzz | undefined;
let codes: Record<string, number> = {};
let ok = 0;
let batch = 0;
const flush = () => {
  parentPort!.postMessage({ type: 'progress', done: batch, ok, codes });
  batch = 0;
  ok = 0;
  codes = {};
};

/** What `headroom analyze` and `check --explain-oom` do with a snapshot, with the run folder's facts when path is in one. */
function analyze(s: Snapshot, path?: string): void {
  for (const d of s.devices) {
    const a = analyzeDevice(s, d);
    buildReport(s, a, 'peak', 10);
    if (path) for (const o of a.ooms) renderDiagnosis(diagnoseSnapshot(s, a, o, deviceFactsBeside(path, d)));
  }
}

/** One case; returns the strategy (for the report) after it ran. Throws what the engine threw. */
async function one(
  mode: Mode,
  seed: number,
  f: { bytes: Uint8Array },
  report: (strategy: string, bytes?: Uint8Array) => void,
): Promise<void> {
  if (mode === 'pickle') {
    const { bytes, strategy } = mutate(f.bytes, seed);
    report(strategy, bytes);
    analyze(parseSnapshot(bytes));
  } else if (mode === 'gz') {
    // Either a mutated pickle, compressed (the engine behind gunzip), or a mutated gzip stream.
    const { bytes, strategy } = mutate(f.bytes, seed);
    let gz: Uint8Array = gzipSync(bytes, { level: 1 });
    let what = `gz(${strategy})`;
    if (rng(seed ^ 0x5bd1e995)() < 0.4) {
      const m = mutate(gzipSync(f.bytes, { level: 1 }), seed + 1);
      gz = m.bytes;
      what = `gz-bytes(${m.strategy})`;
    }
    report(what, gz);
    const path = join(scratch, 'case.pickle.gz');
    writeFileSync(path, gz);
    analyze(await loadSnapshotFile(path));
  } else {
    runs ??= new RunFolderFuzz(scratch, job.baseRun);
    const { dir, strategy } = runs.make(seed);
    report(`run(${strategy})`);
    // As the editor and `headroom run` read a run folder, then `check --explain-oom` on its snapshot.
    for (const p of readRun(dir).processes) {
      const snap = bestSnapshot(p);
      if (snap) analyze(await loadSnapshotFile(snap.path), snap.path);
    }
  }
}

async function main(): Promise<void> {
  for (let k = job.from; k < job.to && !Atomics.load(job.stop, 0); k++) {
    Atomics.store(job.current, 0, k);
    const seed = (job.baseSeed + k * 2654435761) | 0;
    const mode = job.modes[k % job.modes.length]!;
    const f = job.seeds[k % job.seeds.length]!;
    let strategy = '?';
    let bytes: Uint8Array | undefined;
    try {
      await one(mode, seed, f, (s, b) => ((strategy = s), (bytes = b)));
      ok++;
    } catch (e) {
      if (isSnapshotError(e)) codes[e.code] = (codes[e.code] ?? 0) + 1;
      else
        parentPort!.postMessage({
          type: 'crash',
          k,
          fixture: mode === 'run' ? 'run folder' : f.name,
          seed,
          strategy: `${mode}: ${strategy}`,
          error: (e as Error)?.stack ?? String(e),
          bytes,
        });
    }
    if (++batch === 200) flush();
  }
  flush();
}

void main().finally(() => rmSync(scratch, { recursive: true, force: true }));
