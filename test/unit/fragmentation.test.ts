import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { parseOomMessages } from '../../extension/src/core/oomMessage';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { fixture, fixtures, SHARED_SNAPSHOTS } from './helpers';

/** The message prints two decimals of the unit: the figure is exact to ±0.005 of that unit. */
function closeToPrinted(bytes: number, printed: string): void {
  const unit = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 }[printed.split(' ')[1]!]!;
  assert.ok(Math.abs(bytes - Number(printed.split(' ')[0]) * unit) <= 0.005 * unit, `${bytes} B vs "${printed}"`);
}

function unallocatedText(message: string): string {
  return /and (\S+ \S+) is reserved by PyTorch but unallocated/.exec(message)![1]!;
}

describe('fragmentation matches what PyTorch printed in the OOM message', () => {
  for (const name of ['oom_plain', 'frag_oom', 'private_pool_oom']) {
    it(`${name}: reserved-but-unallocated equals the message's figure`, async () => {
      const f = fixture(name);
      const message = f.truth!.oom!.message!;
      const s = await loadSnapshotFile(f.path);
      const frag = analyzeDevice(s, 0).fragmentation;
      closeToPrinted(frag.reservedUnallocatedBytes, unallocatedText(message));
      const parsed = parseOomMessages(message)[0]!;
      closeToPrinted(frag.allocatedBytes + frag.privatePoolFreeBytes, /Of the allocated memory (\S+ \S+) is allocated/.exec(message)![1]!);
      closeToPrinted(parsed.reservedUnallocatedBytes!, unallocatedText(message));
      closeToPrinted(parsed.allocatedBytes!, /Of the allocated memory (\S+ \S+) is allocated/.exec(message)![1]!);
    });
  }

  it('frag_oom: holes inside one segment: enough free in total, no hole big enough', async () => {
    const f = fixture('frag_oom');
    const s = await loadSnapshotFile(f.path);
    const a = analyzeDevice(s, 0);
    const frag = a.fragmentation;
    const request = a.ooms[0]!.requestedBytes;
    assert.equal(f.truth!.oom!.alloc, request, 'the oom entry holds the observer’s request');
    assert.ok(frag.reservedUnallocatedBytes >= request);
    const large = frag.pools.find((p) => p.pool === 'large')!;
    assert.ok(large.largestFreeBytes < request, 'no free block fits the request');
    assert.equal(frag.segments, 1);
    assert.ok(frag.holiest[0]!.holes >= 10);
  });

  it('private_pool_oom: private-pool free bytes are counted as PyTorch counts them', async () => {
    const f = fixture('private_pool_oom');
    const s = await loadSnapshotFile(f.path);
    const frag = analyzeDevice(s, 0).fragmentation;
    const parsed = parseOomMessages(f.truth!.oom!.message!)[0]!;
    assert.ok(parsed.privatePoolBytes! > 0);
    closeToPrinted(frag.privatePoolFreeBytes, /with (\S+ \S+) allocated in private pools/.exec(f.truth!.oom!.message!)![1]!);
    assert.ok(frag.pools.some((p) => p.poolId[0] !== 0 || p.poolId[1] !== 0));
  });

  for (const f of fixtures().filter((x) => x.truth)) {
    it(`${f.name}: inactive split bytes equal inactive_split_bytes.all.current`, async () => {
      const s = await loadSnapshotFile(f.path);
      const frag = analyzeDevice(s, 0).fragmentation;
      assert.equal(frag.inactiveSplitBytes, f.truth!.inactive_split_bytes);
      assert.equal(frag.reservedBytes, f.truth!.memory_reserved);
      assert.equal(frag.allocatedBytes, f.truth!.memory_allocated);
    });
  }
});

describe('OOM messages of every format', () => {
  it('parses the real 2.11 messages, with their caps and processes', () => {
    const real = fixtures()
      .map((f) => f.truth?.oom?.message)
      .filter((m): m is string => !!m);
    real.push(readFileSync(join(SHARED_SNAPSHOTS, 'oom_fraction_message.txt'), 'utf8'));
    assert.ok(real.length >= 4);
    for (const m of real) {
      const [p, ...rest] = parseOomMessages(`Traceback (most recent call last):\n  ...\ntorch.OutOfMemoryError: ${m}\n`);
      assert.equal(rest.length, 0);
      assert.equal(p!.format, 'modern');
      assert.equal(p!.device, 0);
      // Captures made under a memory fraction print "N allowed;" (the demand OOM filled the whole device).
      if (/ allowed; /.test(m)) assert.ok(p!.allowedBytes! > 0, 'the memory-fraction cap');
      else assert.equal(p!.allowedBytes, undefined);
      assert.equal(p!.processes.length, 1);
      assert.equal(p!.processes[0]!.pid, null);
      closeToPrinted(p!.triedBytes!, /Tried to allocate (\S+ \S+)\./.exec(m)![1]!);
    }
  });

  it('agrees with the OOM observer’s own arguments', () => {
    const f = fixture('oom_plain');
    const p = parseOomMessages(f.truth!.oom!.message!)[0]!;
    assert.equal(p.triedBytes, f.truth!.oom!.alloc);
  });

  it('parses the historical and other-backend formats (samples from the format doc §14)', () => {
    const samples = [
      'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.92 GiB total capacity; 9.95 GiB already allocated; 15.38 MiB free; 254.89 MiB cached)',
      'RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 1; 15.78 GiB total capacity; 14.56 GiB already allocated; 1.75 MiB free; 14.71 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb',
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacty of 79.15 GiB of which 512.00 MiB is free. Process 1234 has 78.00 GiB memory in use. Of the allocated memory 76.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 23.69 GiB of which 1.56 MiB is free. Process 42 has 2.00 GiB memory in use. Including non-PyTorch memory, this process has 21.68 GiB memory in use. Of the allocated memory 20.10 GiB is allocated by PyTorch, with 1.00 GiB allocated in private pools (e.g., CUDA Graphs), and 1.10 GiB is reserved by PyTorch but unallocated.',
      'torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated     : 6.00 GiB\nRequested               : 2.00 GiB\nDevice limit            : 79.15 GiB\nFree (according to CUDA): 512.00 MiB\nPyTorch limit (set by user-supplied memory fraction)\n                        : 7.00 GiB',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.',
      'RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/THCStorage.cu:58',
    ];
    const parsed = parseOomMessages(samples.join('\n\n'));
    assert.deepEqual(
      parsed.map((p) => p.format),
      ['cached', 'reserved-hint', 'modern', 'modern', 'async', 'absurd', 'thc'],
    );
    // ≤1.4's "cached" was already reserved − allocated (format doc §14): the slack, not the reserve.
    assert.equal(parsed[0]!.reservedUnallocatedBytes, Math.round(254.89 * 2 ** 20));
    assert.equal(parsed[0]!.reservedBytes, undefined);
    assert.equal(parsed[1]!.device, 1);
    assert.equal(parsed[2]!.processes[0]!.pid, 1234);
    assert.deepEqual(
      parsed[3]!.processes.map((p) => p.pid),
      [42, null],
    );
    assert.equal(parsed[3]!.privatePoolBytes, 2 ** 30);
    assert.equal(parsed[4]!.requestedBytes, 2 * 2 ** 30);
    assert.equal(parsed[4]!.allowedBytes, 7 * 2 ** 30);
  });
});
