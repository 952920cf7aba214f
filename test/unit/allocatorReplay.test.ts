import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFrom } from '../../extension/src/core/allocator/config';
import { replayAllocator } from '../../extension/src/core/allocator/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT, SHARED_SNAPSHOTS } from './helpers';

// The caching allocator replayed with the settings each run recorded, on every real capture in the
// repository: every allocation must land where the trace recorded it, and the block sizes must give
// PyTorch's own allocated bytes (memory_stats()'s allocated_bytes.all.peak and .current, in each
// capture's truth file). Captures the replay cannot take yet must say why.
const dirs = [join(ROOT, 'test', 'fixtures', 'snapshots'), SHARED_SNAPSHOTS];
const captures = dirs.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.pickle'))
    .map((f) => join(d, f)),
);

describe('the caching allocator replayed on real captures', () => {
  let replayed = 0;
  for (const path of captures) {
    it(`${path.split('/').pop()}: every placement as recorded, allocated bytes as PyTorch counted them`, async () => {
      const s = await loadSnapshotFile(path);
      const truthPath = path.replace(/\.pickle$/, '.truth.json');
      const truth = existsSync(truthPath)
        ? (JSON.parse(readFileSync(truthPath, 'utf8')) as { max_memory_allocated?: number; memory_allocated?: number })
        : {};
      for (const d of s.devices) {
        const r = replayAllocator(s, d);
        if (!r.supported) {
          assert.match(r.reason, /expandable segments|private pools/);
          continue;
        }
        replayed++;
        assert.equal(r.mismatchCount, 0, JSON.stringify(r.mismatches));
        if (truth.max_memory_allocated !== undefined) assert.equal(r.allocatedPeak, truth.max_memory_allocated);
        if (truth.memory_allocated !== undefined) assert.equal(r.allocated.at(-1), truth.memory_allocated);
      }
    });
  }
  it('at least thirteen captures are replayed whole, those that began late included', () => assert.ok(replayed >= 13, String(replayed)));

  it('the check has teeth: under another max_split_size the fragmentation capture is placed otherwise', async () => {
    const s = await loadSnapshotFile(join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.pickle'));
    const r = replayAllocator(s, 0, { ...configFrom(s.allocatorSettings), maxSplitSize: 64 * 2 ** 20 });
    assert.ok(r.supported && r.mismatchCount > 0);
  });
});
