// One measured run of the allocator bench (a fresh process): load a snapshot, then replay its
// trace through the caching allocator with the recorded settings and predict it under three
// others, as `headroom whatif` and the summary page do; timings as JSON.
import { applyAllocConf } from '../extension/src/core/allocator/confString';
import { configFrom } from '../extension/src/core/allocator/config';
import { predictAllocator } from '../extension/src/core/allocator/predict';
import { replayAllocator } from '../extension/src/core/allocator/replay';
import { SUMMARY_SETTINGS } from '../extension/src/core/allocator/whatifView';
import { loadSnapshotFile } from '../extension/src/core/snapshot/load';

async function main(): Promise<void> {
  const t0 = performance.now();
  const s = await loadSnapshotFile(process.argv[2]!);
  const t1 = performance.now();
  const r = replayAllocator(s, 0);
  const t2 = performance.now();
  const predictMs: number[] = [];
  for (const conf of SUMMARY_SETTINGS) {
    const t = performance.now();
    const p = predictAllocator(s, 0, applyAllocConf(configFrom(s.allocatorSettings), conf));
    if (!p.supported) throw new Error(p.reason);
    predictMs.push(performance.now() - t);
  }
  if (!r.supported) throw new Error(r.reason);
  console.log(
    JSON.stringify({
      loadMs: t1 - t0,
      replayMs: t2 - t1,
      predictMs,
      events: r.allocated.length,
      allocations: r.allocations,
      mismatches: r.mismatchCount,
    }),
  );
}

void main();
