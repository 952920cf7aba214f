// One measured run (a fresh process, so peak RSS is this load's): load + index a snapshot the way
// the extension does, then print timings and memory as JSON. With `progressive`, the load answers
// from the part read (as the editor's does) and the time of its first answer is printed too.
import { analyzeDevice } from '../extension/src/core/analysis/analyze';
import { attributeAt } from '../extension/src/core/analysis/attributeAt';
import { loadSnapshotFile } from '../extension/src/core/snapshot/load';
import type { Snapshot } from '../extension/src/core/snapshot/model';
import { progressive } from './load.progressive';

async function main(): Promise<void> {
  const path = process.argv[2]!;
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  let firstViewMs: number | undefined;
  const s: Snapshot =
    process.argv[3] === 'progressive'
      ? await progressive(path, () => (firstViewMs ??= performance.now() - t0))
      : await loadSnapshotFile(path);
  const t1 = performance.now();
  let events = 0;
  for (const d of s.devices) {
    const a = analyzeDevice(s, d);
    attributeAt(s, a, a.replay.peak);
    events += a.replay.n;
  }
  const t2 = performance.now();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  // No answer before the whole one (a small file is 60 % read before the first is due): the whole one is the first view.
  firstViewMs ??= t2 - t0;
  console.log(JSON.stringify({ loadMs: t1 - t0, indexMs: t2 - t1, totalMs: t2 - t0, firstViewMs, events, rssBefore, maxRss }));
}

void main();
