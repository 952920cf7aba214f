import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import type { DeviceAnalysis } from '../../extension/src/core/analysis/deviceAnalysis';
import { allocatedAt } from '../../extension/src/core/analysis/replay';
import { annotate } from '../../extension/src/core/source/annotations';
import { shortText } from '../../extension/src/core/source/lineWords';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { fixtures } from './helpers';

// The allocator replay runs when its figures are first read (the editor's decorations come before
// it): whichever is read first, every reader gets the same exact figures, and the decorations'
// own path reads none of them.
const withTruth = fixtures().filter((f) => f.truth);

/** The analysis, with a tripwire on every allocator figure: the read throws. */
function tripwired(a: DeviceAnalysis): DeviceAnalysis {
  const trip = <T extends object>(o: T, key: string): T =>
    new Proxy(o, {
      get: (t, k, r) => {
        if (k === key) throw new Error(`the decorations' path read ${key}`);
        return Reflect.get(t, k, r) as unknown;
      },
    });
  const r = a.replay;
  const replay = { ...r, start: trip(r.start, 'allocatedBytes'), peak: trip(r.peak, 'allocatedBytes'), end: trip(r.end, 'allocatedBytes') };
  return trip(
    {
      ...a,
      replay,
      get allocated(): DeviceAnalysis['allocated'] {
        throw new Error('unused');
      },
    },
    'allocated',
  );
}

describe('the allocator replay, run when first read', () => {
  let differs = 0;
  for (const f of withTruth) {
    it(`${f.name}: the instants read first give the allocator's figures, the same as after reading \`allocated\``, async () => {
      const s = await loadSnapshotFile(f.path);
      const d = defaultDevice(s)!;
      const first = analyzeDevice(s, d);
      const end = first.replay.end.allocatedBytes;
      const peak = first.replay.peak.allocatedBytes;
      const start = first.replay.start.allocatedBytes;
      assert.equal(first.allocated, first.allocated, 'one replay, kept');
      const other = analyzeDevice(s, d);
      const a = other.allocated;
      assert.deepEqual(
        [other.replay.start.allocatedBytes, other.replay.peak.allocatedBytes, other.replay.end.allocatedBytes],
        [start, peak, end],
      );
      if (!a.exact) return;
      assert.equal(end, f.truth!.memory_allocated);
      assert.equal(start, a.start);
      if (first.replay.peak.index >= 0) assert.equal(peak, a.series[first.replay.peak.index]);
      // Where the estimate differs, a read that skipped the allocator would have given it.
      const e = first.replay.elements;
      if (allocatedAt(e, first.replay.peak.index) !== peak || allocatedAt(e, -1) !== start) differs++;
    });
  }
  it('the rounded estimate differs from the allocator somewhere (so the reads above can tell)', () => assert.ok(differs > 0));

  for (const f of withTruth) {
    it(`${f.name}: the decorations (attribution with kinds, annotations, their words) read no allocator figure`, async () => {
      const s = await loadSnapshotFile(f.path);
      const a = tripwired(analyzeDevice(s, defaultDevice(s)!));
      const attribution = attributeAt(s, a, a.replay.peak, true);
      const out = annotate(attribution, (file) => file);
      let words = 0;
      for (const anns of out.byFile.values()) for (const l of anns) words += shortText({ ...l, stale: false }, 'at peak').length;
      assert.ok(attribution.lines.length === 0 || words > 0);
    });
  }
});
