import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { estimateSeries, reservedAt } from '../../extension/src/core/analysis/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import type { Snapshot } from '../../extension/src/core/snapshot/model';
import { fixture, fixtures, ROOT } from './helpers';

const tmp = mkdtempSync(join(tmpdir(), 'headroom-replay-'));

function device(s: Snapshot): number {
  const d = defaultDevice(s);
  assert.notEqual(d, undefined);
  return d!;
}

/** Σ requested_size of the blocks live in the final state: what `requested_bytes.current` counts. */
function finalRequested(s: Snapshot, d: number): number {
  let n = 0;
  for (const seg of s.segments) if (seg.device === d) for (const b of seg.blocks) if (b.state !== 'inactive') n += b.requestedSize;
  return n;
}

describe('replay against PyTorch’s own figures', () => {
  const withTruth = fixtures().filter((f) => f.truth);
  it('covers at least the shared fixtures and the three new shapes', () => {
    const names = withTruth.map((f) => f.name);
    for (const n of ['mlp_train', 'oom_plain', 'transformer_amp_ckpt', 'ring_overflow', 'expandable_train', 'frag_oom'])
      assert.ok(names.includes(n), n);
  });

  for (const f of withTruth) {
    it(`${f.name}: peak and end requested bytes equal requested_bytes.all.peak/current`, async () => {
      const s = await loadSnapshotFile(f.path);
      const r = analyzeDevice(s, device(s)).replay;
      assert.equal(r.peak.requestedBytes, f.truth!.requested_bytes_peak);
      assert.equal(r.end.requestedBytes, f.truth!.requested_bytes_current);
      assert.equal(r.end.requestedBytes, finalRequested(s, r.device), 'the replay ends where the final state is');
    });

    it(`${f.name}: reserved (segment events + final segments) equals memory_reserved and its peak`, async () => {
      const s = await loadSnapshotFile(f.path);
      const r = analyzeDevice(s, device(s)).replay;
      assert.equal(reservedAt(r, r.n - 1), f.truth!.memory_reserved);
      assert.equal(r.reservedEnd, f.truth!.memory_reserved);
      assert.equal(r.reservedPeak.bytes, f.truth!.max_memory_reserved);
      assert.ok(r.start.reservedBytes >= 0);
    });

    it(`${f.name}: the allocated figure lies between requested and PyTorch's allocated, and is PyTorch's where the allocator replay is exact`, async () => {
      const s = await loadSnapshotFile(f.path);
      const a = analyzeDevice(s, device(s));
      const r = a.replay;
      assert.ok(r.peak.allocatedBytes >= r.peak.requestedBytes);
      assert.ok(r.peak.allocatedBytes <= f.truth!.max_memory_allocated, `${r.peak.allocatedBytes} > ${f.truth!.max_memory_allocated}`);
      if (a.allocated.exact) assert.equal(a.allocated.peak, f.truth!.max_memory_allocated);
      // Live blocks of the final state carry their exact size.
      let allocatedEnd = 0;
      for (const seg of s.segments) if (seg.device === r.device) allocatedEnd += seg.allocatedSize;
      assert.equal(r.end.allocatedBytes, f.truth!.memory_allocated);
      assert.equal(allocatedEnd, f.truth!.memory_allocated);
      // The series the timeline draws (the replay's where exact) agree with the point queries.
      const est = estimateSeries(r.elements, r.n);
      const series = a.allocated.exact ? a.allocated.series : est.allocated;
      if (r.n > 0 && r.peak.index >= 0) {
        assert.equal(series[r.peak.index]!, r.peak.allocatedBytes);
        assert.equal(series[r.n - 1]!, f.truth!.memory_allocated);
        assert.ok(est.active[r.n - 1]! >= est.allocated[r.n - 1]!);
      }
    });
  }

  it('ring_overflow: the window starts mid-run, and the pre-window memory is seeded', async () => {
    const f = fixture('ring_overflow');
    const s = await loadSnapshotFile(f.path);
    const r = analyzeDevice(s, device(s)).replay;
    assert.equal(r.n, f.truth!.max_entries);
    assert.ok(r.start.blocks > 0 && r.start.requestedBytes > 0);
  });

  it('expandable_train: segment_map/unmap drive reserved memory', async () => {
    const s = await loadSnapshotFile(fixture('expandable_train').path);
    assert.ok(s.segments.every((seg) => seg.expandable));
    const r = analyzeDevice(s, 0).replay;
    assert.ok(r.reservedPeak.bytes > reservedAt(r, r.n - 1), 'empty_cache unmapped pages');
    assert.ok(s.columns.action.includes(6), 'segment_unmap events');
  });
});

describe('every producer layout normalizes to the same numbers', () => {
  const base = fixture('mlp_train');
  const downgrade = (kind: string): string => {
    const out = join(tmp, `${kind}.pickle`);
    execFileSync('python3', [join(ROOT, 'test', 'reference', 'downgrade.py'), base.path, out, kind]);
    return out;
  };

  for (const kind of ['torch2.0', 'free-pairs', 'future', 'protocol5', 'protocol2']) {
    it(`${kind}: same peak and end as PyTorch reported`, async () => {
      const s = await loadSnapshotFile(downgrade(kind));
      const r = analyzeDevice(s, 0).replay;
      assert.equal(r.peak.requestedBytes, base.truth!.requested_bytes_peak);
      assert.equal(r.end.requestedBytes, base.truth!.requested_bytes_current);
      if (kind === 'torch2.0') {
        assert.equal(s.hasTimes, false);
        assert.equal(r.peak.timeUs, null);
      }
    });
  }

  for (const kind of ['torch1.13', 'segments-list']) {
    it(`${kind}: a bare segment list gives the final state`, async () => {
      const s = await loadSnapshotFile(downgrade(kind));
      assert.equal(s.layout, 'segments');
      const a = analyzeDevice(s, 0);
      assert.equal(a.replay.n, 0);
      assert.equal(a.replay.end.requestedBytes, base.truth!.requested_bytes_current);
      assert.equal(a.fragmentation.reservedBytes, base.truth!.memory_reserved);
      assert.equal(a.fragmentation.allocatedBytes, base.truth!.memory_allocated);
    });
  }
});
