import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { allocatedAt, reservedAt } from '../../extension/src/core/analysis/replay';
import { parseOomMessages } from '../../extension/src/core/oomMessage';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { allocatorStateAt, poolSummaries } from '../../extension/src/core/timeline/segments';
import { fixture, fixtures } from './helpers';

describe('allocator state at an instant', () => {
  for (const fx of fixtures()) {
    it(`${fx.name}: at the last event it is the dumped state, block for block`, async () => {
      const s = await loadSnapshotFile(fx.path);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const st = allocatorStateAt(s, a, a.replay.n - 1);
      const want = s.segments.filter((g) => g.device === a.device).sort((x, y) => x.address - y.address);
      assert.equal(st.orphans, 0);
      assert.deepEqual(
        st.segments.map((g) => [g.address, g.size]),
        want.map((g) => [g.address, g.totalSize]),
      );
      st.segments.forEach((g, i) => {
        // Adjacent free blocks of the dump are one gap here; compare the used blocks and the free bytes.
        const dumped = want[i]!.blocks;
        assert.deepEqual(
          g.blocks
            .filter((b) => b.state !== 'free')
            .map((b) => [b.address, b.size, b.state === 'allocated' ? 'active_allocated' : 'active_pending_free']),
          dumped.filter((b) => b.state !== 'inactive').map((b) => [b.address, b.size, b.state]),
        );
        const free = (xs: { size: number }[]) => xs.reduce((t, b) => t + b.size, 0);
        assert.equal(free(g.blocks.filter((b) => b.state === 'free')), free(dumped.filter((b) => b.state === 'inactive')));
      });
    });

    it(`${fx.name}: at any instant every live block lies in a segment alive then, none overlap, and the totals agree with the replay`, async () => {
      const s = await loadSnapshotFile(fx.path);
      const a = analyzeDevice(s, defaultDevice(s)!);
      const n = a.replay.n;
      for (const i of [-1, Math.floor(n / 7), Math.floor(n / 3), Math.floor(n / 2), a.replay.peak.index, n - 2]) {
        if (i >= n) continue;
        const st = allocatorStateAt(s, a, i);
        assert.equal(st.orphans, 0, `event ${i}`);
        assert.equal(
          st.segments.reduce((t, g) => t + g.size, 0),
          reservedAt(a.replay, i),
          `event ${i}: segments vs the replay's reserved bytes`,
        );
        let allocated = 0;
        for (const g of st.segments) {
          let at = g.address;
          for (const b of g.blocks) {
            assert.equal(b.address, at, `event ${i}: blocks of segment ${g.address.toString(16)} overlap or leave a hole`);
            at += b.size;
            if (b.state === 'allocated') allocated += b.size;
          }
          assert.equal(at, g.address + g.size);
        }
        assert.equal(allocated, allocatedAt(a.replay.elements, i), `event ${i}: allocated blocks vs the replay`);
      }
    });
  }

  it("at a fragmentation OOM, no free block fits the request and the pool's free bytes are the message's 'reserved but unallocated'", async () => {
    const fx = fixture('frag_oom');
    const s = await loadSnapshotFile(fx.path);
    const a = analyzeDevice(s, defaultDevice(s)!);
    const oom = a.ooms[0]!;
    const st = allocatorStateAt(s, a, oom.index);
    const msg = parseOomMessages(fx.truth!.oom!.message!)[0]!;
    const pools = poolSummaries(st);
    assert.equal(
      pools.reduce((t, p) => t + p.free, 0),
      msg.reservedUnallocatedBytes,
    );
    assert.ok(Math.max(...pools.map((p) => p.largestFree)) < oom.requestedBytes);
    assert.ok(pools.reduce((t, p) => t + p.free, 0) > oom.requestedBytes, 'more free than the request, in pieces');
  });
});
