import { parentPort, workerData } from 'node:worker_threads';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { isSnapshotError } from '../../extension/src/core/errors';
import { buildReport } from '../../extension/src/core/report';
import { parseSnapshot } from '../../extension/src/core/snapshot/load';
import { mutate } from './mutate';

interface Job {
  seeds: { name: string; bytes: Uint8Array }[];
  from: number;
  to: number;
  baseSeed: number;
  current: Int32Array;
}

const job = workerData as Job;
let codes: Record<string, number> = {};
let ok = 0;
let batch = 0;
const flush = () => {
  parentPort!.postMessage({ type: 'progress', done: batch, ok, codes });
  batch = 0;
  ok = 0;
  codes = {};
};
for (let k = job.from; k < job.to; k++) {
  Atomics.store(job.current, 0, k);
  const seed = (job.baseSeed + k * 2654435761) | 0;
  const f = job.seeds[k % job.seeds.length]!;
  const { bytes, strategy } = mutate(f.bytes, seed);
  try {
    const s = parseSnapshot(bytes);
    for (const d of s.devices) buildReport(s, analyzeDevice(s, d), 'peak', 10);
    ok++;
  } catch (e) {
    if (isSnapshotError(e)) codes[e.code] = (codes[e.code] ?? 0) + 1;
    else {
      parentPort!.postMessage({ type: 'crash', k, fixture: f.name, seed, strategy, error: (e as Error)?.stack ?? String(e), bytes });
    }
  }
  if (++batch === 500) flush();
}
flush();
