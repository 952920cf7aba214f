import type { Segment } from '../snapshot/model';

export interface PoolFree {
  /** 'small' or 'large'. */
  pool: string;
  /** [0,0] for the default pools; private pools (CUDA graphs, MemPool) are listed separately. */
  poolId: [number, number];
  segments: number;
  reservedBytes: number;
  freeBytes: number;
  largestFreeBytes: number;
}

export interface HoleySegment {
  address: number;
  pool: string;
  poolId: [number, number];
  totalBytes: number;
  allocatedBytes: number;
  /** Free blocks lying between used blocks of the segment. */
  holes: number;
  freeBytes: number;
  largestFreeBytes: number;
}

export interface Fragmentation {
  device: number;
  segments: number;
  reservedBytes: number;
  /** Σ rounded sizes of allocated blocks (PyTorch's memory_allocated()). */
  allocatedBytes: number;
  /** Allocated + pending-free (blocks freed by the user but still in use by another stream). */
  activeBytes: number;
  /** Cached free bytes inside private pools; PyTorch's OOM message counts them as allocated. */
  privatePoolFreeBytes: number;
  /** Reserved − allocated − private-pool free: the OOM message's "reserved by PyTorch but unallocated". */
  reservedUnallocatedBytes: number;
  /** Free pieces of split segments (not returned by empty_cache); expandable segments excluded. */
  inactiveSplitBytes: number;
  inactiveSplitBlocks: number;
  pools: PoolFree[];
  /** Segments with the most holes, worst first (at most 5). */
  holiest: HoleySegment[];
}

const isDefaultPool = (p: [number, number]): boolean => p[0] === 0 && p[1] === 0;

/** Fragmentation of one device's final state (the segments at dump time). */
export function fragmentation(device: number, segments: readonly Segment[]): Fragmentation {
  const f: Fragmentation = {
    device,
    segments: 0,
    reservedBytes: 0,
    allocatedBytes: 0,
    activeBytes: 0,
    privatePoolFreeBytes: 0,
    reservedUnallocatedBytes: 0,
    inactiveSplitBytes: 0,
    inactiveSplitBlocks: 0,
    pools: [],
    holiest: [],
  };
  const pools = new Map<string, PoolFree>();
  const holey: HoleySegment[] = [];
  for (const s of segments) {
    if (s.device !== device) continue;
    f.segments++;
    f.reservedBytes += s.totalSize;
    f.allocatedBytes += s.allocatedSize;
    f.activeBytes += s.activeSize;
    const key = `${s.type}/${s.poolId[0]},${s.poolId[1]}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = { pool: s.type, poolId: s.poolId, segments: 0, reservedBytes: 0, freeBytes: 0, largestFreeBytes: 0 };
      pools.set(key, pool);
    }
    pool.segments++;
    pool.reservedBytes += s.totalSize;
    let free = 0;
    let largest = 0;
    let holes = 0;
    const split = s.blocks.length > 1;
    s.blocks.forEach((b, i) => {
      if (b.state !== 'inactive') return;
      free += b.size;
      largest = Math.max(largest, b.size);
      if (split && !s.expandable) {
        f.inactiveSplitBytes += b.size;
        f.inactiveSplitBlocks++;
      }
      if (i > 0 && i < s.blocks.length - 1) holes++;
    });
    pool.freeBytes += free;
    pool.largestFreeBytes = Math.max(pool.largestFreeBytes, largest);
    if (!isDefaultPool(s.poolId)) f.privatePoolFreeBytes += free;
    if (holes > 0) {
      holey.push({
        address: s.address,
        pool: s.type,
        poolId: s.poolId,
        totalBytes: s.totalSize,
        allocatedBytes: s.allocatedSize,
        holes,
        freeBytes: free,
        largestFreeBytes: largest,
      });
    }
  }
  f.reservedUnallocatedBytes = f.reservedBytes - f.allocatedBytes - f.privatePoolFreeBytes;
  f.pools = [...pools.values()].sort(
    (a, b) => Number(isDefaultPool(b.poolId)) - Number(isDefaultPool(a.poolId)) || a.pool.localeCompare(b.pool),
  );
  f.holiest = holey.sort((a, b) => b.holes - a.holes || b.freeBytes - a.freeBytes).slice(0, 5);
  return f;
}
