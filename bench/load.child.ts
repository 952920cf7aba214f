// One measured run (a fresh process, so peak RSS is this load's): load + index a snapshot the way
// the extension does, then print timings and memory as JSON.
import { analyzeDevice } from '../extension/src/core/analysis/analyze';
import { attributeAt } from '../extension/src/core/analysis/attributeAt';
import { loadSnapshotFile } from '../extension/src/core/snapshot/load';

async function main(): Promise<void> {
  const path = process.argv[2]!;
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const s = await loadSnapshotFile(path);
  const t1 = performance.now();
  let events = 0;
  for (const d of s.devices) {
    const a = analyzeDevice(s, d);
    attributeAt(s, a, a.replay.peak);
    events += a.replay.n;
  }
  const t2 = performance.now();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ loadMs: t1 - t0, indexMs: t2 - t1, totalMs: t2 - t0, events, rssBefore, maxRss }));
}

void main();
