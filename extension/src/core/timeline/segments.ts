import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Action } from '../snapshot/actions';
import { traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';

export type SegBlockState = 'allocated' | 'pending' | 'free';

export interface SegBlock {
  address: number;
  /** Block bytes (rounded; exact for blocks alive at the dump, estimated before). */
  size: number;
  requested: number;
  state: SegBlockState;
  /** The replay element behind an allocated or pending block. */
  element: number;
}

export interface SegState {
  address: number;
  size: number;
  stream: number;
  /** 'small' (2 MiB segments for ≤1 MiB requests) or 'large'. */
  pool: string;
  poolId: [number, number];
  expandable: boolean;
  /** Bottom to top of the address range, free gaps included, so the sizes add up to `size`. */
  blocks: SegBlock[];
}

export interface AllocatorState {
  index: number;
  segments: SegState[];
  /** Blocks whose address lies in no segment alive at the instant (the trace and the final state disagree). */
  orphans: number;
}

const SMALL_SEGMENT = 2 << 20;

/**
 * The allocator's segments and blocks just after event `index`, rebuilt backwards from the final
 * state as PyTorch's viewer does: segments allocated after the instant are removed, segments freed
 * after it come back (their pool inferred from their size), expandable segments shrink or grow by
 * the ranges mapped or unmapped after it. The blocks are the replay's live elements at the instant.
 */
export function allocatorStateAt(s: Snapshot, a: DeviceAnalysis, index: number): AllocatorState {
  const t = traceOf(s, a.device);
  const segs = new Map<number, SegState>();
  // Expandable segments are mapped ranges of one reserved address range: kept as intervals, then
  // each contiguous mapped run is a segment, as in PyTorch's own snapshot.
  let mapped: SegState[] = [];
  for (const g of s.segments) {
    if (g.device !== a.device) continue;
    const seg = {
      address: g.address,
      size: g.totalSize,
      stream: g.stream,
      pool: g.type,
      poolId: g.poolId,
      expandable: g.expandable,
      blocks: [],
    };
    if (g.expandable) mapped.push(seg);
    else segs.set(g.address, seg);
  }
  for (let i = t.length - 1; i > index; i--) {
    const act = t.action[i]!;
    const addr = t.addr[i]!;
    const size = t.size[i]!;
    if (act === Action.SegmentAlloc) segs.delete(addr);
    else if (act === Action.SegmentFree) {
      segs.set(addr, {
        address: addr,
        size,
        stream: t.stream[i]!,
        pool: size === SMALL_SEGMENT ? 'small' : 'large',
        poolId: [0, 0],
        expandable: false,
        blocks: [],
      });
    } else if (act === Action.SegmentMap) mapped = cut(mapped, addr, addr + size);
    else if (act === Action.SegmentUnmap) {
      const near = mapped.find((g) => g.stream === t.stream[i]!);
      mapped.push({
        address: addr,
        size,
        stream: t.stream[i]!,
        pool: near?.pool ?? (size <= SMALL_SEGMENT ? 'small' : 'large'),
        poolId: near?.poolId ?? [0, 0],
        expandable: true,
        blocks: [],
      });
    }
  }
  for (const g of merge(mapped)) segs.set(g.address, g);
  const sorted = [...segs.values()].sort((x, y) => x.address - y.address);
  const e = a.replay.elements;
  let orphans = 0;
  const live: number[] = [];
  for (let k = 0; k < e.count; k++) if (e.alloc[k]! <= index && e.free[k]! > index) live.push(k);
  live.sort((x, y) => e.addr[x]! - e.addr[y]!);
  let gi = 0;
  for (const k of live) {
    const addr = e.addr[k]!;
    while (gi < sorted.length && sorted[gi]!.address + sorted[gi]!.size <= addr) gi++;
    const g = sorted[gi];
    if (!g || addr < g.address) {
      orphans++;
      continue;
    }
    g.blocks.push({
      address: addr,
      size: e.rounded[k]!,
      requested: e.size[k]!,
      state: e.freeRequested[k]! > index ? 'allocated' : 'pending',
      element: k,
    });
  }
  for (const g of sorted) g.blocks = withGaps(g);
  return { index, segments: sorted, orphans };
}

/** The intervals minus [lo, hi). */
function cut(list: SegState[], lo: number, hi: number): SegState[] {
  const out: SegState[] = [];
  for (const g of list) {
    const end = g.address + g.size;
    if (end <= lo || g.address >= hi) {
      out.push(g);
      continue;
    }
    if (g.address < lo) out.push({ ...g, size: lo - g.address });
    if (end > hi) out.push({ ...g, address: hi, size: end - hi });
  }
  return out;
}

/** Adjacent intervals of one stream and pool, joined. */
function merge(list: SegState[]): SegState[] {
  const out: SegState[] = [];
  for (const g of [...list].sort((x, y) => x.address - y.address)) {
    const last = out.at(-1);
    if (last && last.address + last.size === g.address && last.stream === g.stream && last.pool === g.pool) last.size += g.size;
    else out.push({ ...g, blocks: [] });
  }
  return out;
}

/** The segment's blocks with its free ranges between them, clamped to the segment. */
function withGaps(g: SegState): SegBlock[] {
  const out: SegBlock[] = [];
  let at = g.address;
  const end = g.address + g.size;
  for (const b of g.blocks) {
    if (b.address > at) out.push({ address: at, size: b.address - at, requested: 0, state: 'free', element: -1 });
    const size = Math.min(b.size, end - b.address);
    out.push({ ...b, size });
    at = Math.max(at, b.address + size);
  }
  if (at < end) out.push({ address: at, size: end - at, requested: 0, state: 'free', element: -1 });
  return out;
}

export interface PoolSummary {
  key: string;
  pool: string;
  poolId: [number, number];
  stream: number;
  segments: number;
  reserved: number;
  allocated: number;
  pending: number;
  free: number;
  largestFree: number;
}

/** Per pool and stream: what a request there could use without a new cudaMalloc. */
export function poolSummaries(st: AllocatorState): PoolSummary[] {
  const pools = new Map<string, PoolSummary>();
  for (const g of st.segments) {
    const key = `${g.pool} pool${g.poolId[0] || g.poolId[1] ? ` (${g.poolId[0]}, ${g.poolId[1]})` : ''}, stream ${g.stream}`;
    let p = pools.get(key);
    if (!p) {
      p = {
        key,
        pool: g.pool,
        poolId: g.poolId,
        stream: g.stream,
        segments: 0,
        reserved: 0,
        allocated: 0,
        pending: 0,
        free: 0,
        largestFree: 0,
      };
      pools.set(key, p);
    }
    p.segments++;
    p.reserved += g.size;
    for (const b of g.blocks) {
      if (b.state === 'allocated') p.allocated += b.size;
      else if (b.state === 'pending') p.pending += b.size;
      else {
        p.free += b.size;
        p.largestFree = Math.max(p.largestFree, b.size);
      }
    }
  }
  return [...pools.values()].sort((x, y) => y.reserved - x.reserved);
}
