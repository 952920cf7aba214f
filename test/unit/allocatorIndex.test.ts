import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBlock } from '../../extension/src/core/allocator/blockIndex';
import type { Blk, Seg } from '../../extension/src/core/allocator/blocks';
import { MappedRanges } from '../../extension/src/core/allocator/mappedRanges';
import { absorb, splitAt } from '../../extension/src/core/allocator/rules';

type R = { lo: number; hi: number; stream: number; small: boolean; pool: number };

/** The list seed.ts kept before: the model the trees must match. */
class Plain {
  mapped: R[] = [];
  map(addr: number, size: number): void {
    this.mapped = this.mapped
      .flatMap((r) => [
        { ...r, hi: Math.min(r.hi, addr) },
        { ...r, lo: Math.max(r.lo, addr + size) },
      ])
      .filter((r) => r.hi > r.lo);
  }
  unmap(addr: number, size: number, stream: number): void {
    const near = this.mapped.filter((r) => r.stream === stream && r.lo <= addr).sort((x, y) => y.lo - x.lo)[0];
    this.mapped.push({ lo: addr, hi: addr + size, stream, small: near?.small ?? false, pool: near?.pool ?? 0 });
  }
  sorted(): R[] {
    return this.mapped.sort((x, y) => x.lo - y.lo);
  }
}

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const strip = (rs: R[]) => rs.map(({ lo, hi, stream, small, pool }) => ({ lo, hi, stream, small, pool }));

test('mapped ranges: the trees give what the plain list gave, overlaps and odd sizes included', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rand = rng(seed);
    const odd = seed % 3 === 0;
    const a = new MappedRanges();
    const b = new Plain();
    for (let k = 0; k < 4; k++) {
      const r = { lo: Math.floor(rand() * 50), hi: 0, stream: Math.floor(rand() * 2), small: rand() < 0.5, pool: Math.floor(rand() * 3) };
      r.hi = r.lo + 1 + Math.floor(rand() * 10);
      a.add(r);
      b.mapped.push({ ...r });
    }
    for (let i = 0; i < 60; i++) {
      const addr = Math.floor(rand() * 60);
      const size = odd ? Math.floor(rand() * 12) - (rand() < 0.1 ? 8 : 0) : 1 + Math.floor(rand() * 11);
      if (rand() < 0.5) {
        a.map(addr, size);
        b.map(addr, size);
      } else {
        const stream = Math.floor(rand() * 2);
        a.unmap(addr, size, stream);
        b.unmap(addr, size, stream);
      }
    }
    assert.deepEqual(strip(a.sorted()), strip(b.sorted()), `seed ${seed}`);
  }
});

test('block index: finds the block a walk from the head finds, through splits and merges', () => {
  const rand = rng(7);
  const seg: Seg = { addr: 0, size: 1000, stream: 0, small: false, pool: 0, head: null };
  seg.head = { addr: 0, size: 1000, seg, prev: null, next: null, free: true };
  const walk = (addr: number) => {
    for (let b = seg.head; b; b = b.next) if (addr >= b.addr && addr < b.addr + b.size) return b;
    return undefined;
  };
  const blocks = () => {
    const out: Blk[] = [];
    for (let b = seg.head; b; b = b.next) out.push(b);
    return out;
  };
  for (let i = 0; i < 3000; i++) {
    const addr = Math.floor(rand() * 1100) - 50;
    assert.equal(findBlock(seg, addr), walk(addr));
    const bs = blocks();
    const b = bs[Math.floor(rand() * bs.length)]!;
    if (rand() < 0.5 && b.size > 1) splitAt(b, b.addr + 1 + Math.floor(rand() * (b.size - 1)));
    else if (bs.length > 1) {
      const n = rand() < 0.5 ? b.prev : b.next;
      if (n) absorb(b, n);
    }
  }
});
