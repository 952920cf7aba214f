import { Action } from '../snapshot/actions';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import { lastAtOrBelow } from './segIndex';

/**
 * What the dump says of the memory at an address: its pool (trace entries do not name one: a
 * block's pool is that of the segment the dump shows at its address), its kind, whether expandable.
 * Pool 0 is the default one; private pools (CUDA graphs, MemPools) are numbered from 1.
 */
export interface FinalSeg {
  addr: number;
  end: number;
  pool: number;
  small: boolean;
  stream: number;
  expandable: boolean;
}

export class FinalSegs {
  readonly segs: FinalSeg[];

  constructor(s: Snapshot, device: number) {
    const ids = new Map<string, number>([['0,0', 0]]);
    // The dump names streams by their cudaStream_t, the trace by its own ids (a stream the trace never used gets one of its own).
    const known = s.columns.streams;
    const streamId = (raw: number) => (known.indexOf(raw) >= 0 ? known.indexOf(raw) : -1 - raw);
    this.segs = s.segments
      .filter((g) => g.device === device)
      .map((g) => {
        const id = `${g.poolId[0]},${g.poolId[1]}`;
        if (!ids.has(id)) ids.set(id, ids.size);
        return {
          addr: g.address,
          end: g.address + g.totalSize,
          pool: ids.get(id)!,
          small: g.type === 'small',
          stream: streamId(g.stream),
          expandable: g.expandable,
        };
      })
      .sort((x, y) => x.addr - y.addr);
  }

  /** The dump's segment holding `addr`. */
  at(addr: number): FinalSeg | undefined {
    const g = this.segs[lastAtOrBelow(this.segs, addr)];
    return g && addr < g.end ? g : undefined;
  }

  /** The pool of the memory at `addr`, or the default pool where the dump no longer holds it. */
  poolAt(addr: number): number {
    return this.at(addr)?.pool ?? 0;
  }

  /**
   * The pool of memory at `addr` used from `stream`: the dump's segment there, else (pages unmapped
   * by the end) that of the nearest expandable range below it on the stream: virtual ranges are kept.
   */
  poolNear(addr: number, stream: number): number {
    const g = this.at(addr);
    if (g) return g.pool;
    let near: FinalSeg | undefined;
    for (const x of this.segs) if (x.expandable && x.stream === stream && x.addr <= addr && (!near || x.addr > near.addr)) near = x;
    return near?.pool ?? 0;
  }

  get hasPrivatePools(): boolean {
    return this.segs.some((g) => g.pool !== 0);
  }
}

/**
 * The pool of each allocation in the trace. A cudaMalloc'd segment has the dump's pool only if it
 * lives to the dump: an address freed (by empty_cache, say) and taken again by a graph's private
 * pool was the default pool's before. Expandable ranges are not given back, so the dump says.
 */
export interface PoolsOf {
  /** The pool of the allocation or of the segment allocated at trace index i. */
  alloc(i: number): number;
  segment(i: number): number;
}

export function tracePools(t: DeviceTrace, finals: FinalSegs): PoolsOf {
  if (!finals.hasPrivatePools) return { alloc: () => 0, segment: () => 0 };
  const pools = new Map<number, number>();
  const freedLater = new Set<number>();
  const segPool = new Map<number, number>();
  for (let i = t.length - 1; i >= 0; i--) {
    const a = t.action[i]!;
    if (a === Action.SegmentFree) freedLater.add(t.addr[i]!);
    else if (a === Action.SegmentAlloc) {
      segPool.set(i, freedLater.has(t.addr[i]!) ? 0 : finals.poolAt(t.addr[i]!));
      freedLater.delete(t.addr[i]!);
    }
  }
  const live: { addr: number; end: number; pool: number }[] = [];
  for (let i = 0; i < t.length; i++) {
    const a = t.action[i]!;
    const addr = t.addr[i]!;
    if (a === Action.SegmentAlloc) live.push({ addr, end: addr + t.size[i]!, pool: segPool.get(i)! });
    else if (a === Action.SegmentFree) live.splice(live.findIndex((g) => g.addr === addr) >>> 0, 1);
    else if (a === Action.Alloc)
      pools.set(i, live.find((g) => g.addr <= addr && addr < g.end)?.pool ?? finals.poolNear(addr, t.stream[i]!));
  }
  return { alloc: (i) => pools.get(i) ?? 0, segment: (i) => segPool.get(i) ?? 0 };
}
