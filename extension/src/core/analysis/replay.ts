import { AddrMap } from './addrMap';
import { Action } from '../snapshot/actions';
import { f64, i32, u8 } from '../snapshot/columns';
import type { DeviceTrace, Segment } from '../snapshot/model';
import { roundSize } from './rounding';
import type { Rounding } from './rounding';

/** Where an element (one allocation's lifetime) comes from. */
export const enum Origin {
  /** An `alloc` in the trace. */
  Trace = 0,
  /** A free whose alloc is not in the trace: allocated before recording or evicted from the ring buffer. */
  UnmatchedFree = 1,
  /** A block live in the final state with no alloc in the trace ("ghost"). */
  Ghost = 2,
}

/**
 * Every allocation lifetime the replay found, as columns. Event indices: `alloc` is -1 for elements
 * that predate the trace; `free`/`freeRequested` are `n` (the trace length) while still alive.
 */
export interface Elements {
  count: number;
  addr: Float64Array;
  /** Requested (unrounded) bytes: exact. */
  size: Float64Array;
  /** Rounded block bytes: the block's real size when it is live at the end, else an estimate. */
  rounded: Float64Array;
  alloc: Int32Array;
  freeRequested: Int32Array;
  free: Int32Array;
  /** Allocation stack (for UnmatchedFree: the stack of the free). */
  stack: Int32Array;
  stream: Int32Array;
  origin: Uint8Array;
}

export interface Instant {
  /** Trace index after which the figure holds; -1 = before the first recorded event. */
  index: number;
  timeUs: number | null;
  requestedBytes: number;
  /** Estimate: sizes rounded to 512 B (or per roundup_power2_divisions); see `Elements.rounded`. */
  allocatedBytes: number;
}

export interface Replay {
  device: number;
  n: number;
  /** The trace's timestamps (µs since the epoch; NaN before torch 2.2). */
  timeUs: Float64Array;
  /** Requested bytes live after each event: exact, the headline series. */
  requested: Float64Array;
  /**
   * Reserved memory as steps: it changes only at segment events, so it is kept as (event index,
   * bytes after it) pairs; see reservedAt(). `start` holds the figure before the first event.
   */
  reservedSteps: { index: Int32Array; bytes: Float64Array };
  /** The figures before the first event: memory allocated before the recorded window began. */
  start: { requestedBytes: number; allocatedBytes: number; reservedBytes: number; blocks: number };
  peak: Instant;
  end: Instant;
  reservedPeak: { index: number; bytes: number };
  reservedEnd: number;
  elements: Elements;
  warnings: string[];
}

class ElementBuilder {
  readonly addr;
  readonly size;
  readonly rounded;
  readonly alloc;
  readonly freeRequested;
  readonly free;
  readonly stack;
  readonly stream;
  readonly origin;

  /** Sized for the expected count (allocs + final live blocks), so columns rarely grow. */
  constructor(capacity: number) {
    this.addr = f64(capacity);
    this.size = f64(capacity);
    this.rounded = f64(capacity);
    this.alloc = i32(capacity);
    this.freeRequested = i32(capacity);
    this.free = i32(capacity);
    this.stack = i32(capacity);
    this.stream = i32(capacity);
    this.origin = u8(capacity);
  }

  add(
    addr: number,
    size: number,
    rounded: number,
    alloc: number,
    freeReq: number,
    free: number,
    stack: number,
    stream: number,
    origin: Origin,
  ): number {
    const id = this.addr.length;
    this.addr.push(addr);
    this.size.push(size);
    this.rounded.push(rounded);
    this.alloc.push(alloc);
    this.freeRequested.push(freeReq);
    this.free.push(free);
    this.stack.push(stack);
    this.stream.push(stream);
    this.origin.push(origin);
    return id;
  }

  finish(): Elements {
    return {
      count: this.addr.length,
      addr: this.addr.seal(),
      size: this.size.seal(),
      rounded: this.rounded.seal(),
      alloc: this.alloc.seal(),
      freeRequested: this.freeRequested.seal(),
      free: this.free.seal(),
      stack: this.stack.seal(),
      stream: this.stream.seal(),
      origin: this.origin.seal(),
    };
  }
}

/**
 * Replays one device's trace (§13.2 / §16 of the format doc): memory is released at
 * `free_completed`, allocations that predate the window are seeded from unmatched frees and from the
 * final state's live blocks, and reserved memory is rebuilt backwards from the final segments.
 */
export function replay(t: DeviceTrace, segments: readonly Segment[], rounding: Rounding): Replay {
  const n = t.length;
  const warnings: string[] = [];
  // An element per alloc or free without one: a trace begun mid-run frees more than it allocates.
  let allocs = 0;
  let frees = 0;
  for (let i = 0; i < n; i++) {
    const a = t.action[i];
    if (a === Action.Alloc) allocs++;
    else if (a === Action.FreeCompleted || a === Action.Free) frees++;
  }
  let expected = 16 + Math.max(allocs, frees);
  for (const s of segments) if (s.device === t.device) expected += s.blocks.length;
  const el = new ElementBuilder(expected);
  const live = new AddrMap();
  const requestedBefore = new AddrMap(); // addr -> free_requested index of unmatched frees
  let doubleAllocs = 0;
  let reservedDelta = 0;
  const { action, addr, size, stack, stream } = t;

  for (let i = 0; i < n; i++) {
    const a = action[i]!;
    const ad = addr[i]!;
    switch (a) {
      case Action.Alloc: {
        const prev = live.get(ad);
        if (prev >= 0) {
          // Its free was never recorded: close it here rather than double count.
          el.free.data[prev] = i;
          if (el.freeRequested.data[prev]! > i) el.freeRequested.data[prev] = i;
          doubleAllocs++;
        }
        live.set(ad, el.add(ad, size[i]!, roundSize(size[i]!, rounding), i, n, n, stack[i]!, stream[i]!, Origin.Trace));
        break;
      }
      case Action.FreeRequested: {
        const e = live.get(ad);
        if (e >= 0) el.freeRequested.data[e] = i;
        else requestedBefore.set(ad, i);
        break;
      }
      case Action.FreeCompleted:
      case Action.Free: {
        const e = live.get(ad);
        if (e >= 0) {
          el.free.data[e] = i;
          if (el.freeRequested.data[e]! > i) el.freeRequested.data[e] = i;
          live.delete(ad);
        } else {
          const r = requestedBefore.get(ad);
          const req = r >= 0 ? r : i;
          requestedBefore.delete(ad);
          el.add(ad, size[i]!, roundSize(size[i]!, rounding), -1, req, i, stack[i]!, stream[i]!, Origin.UnmatchedFree);
        }
        break;
      }
      case Action.SegmentAlloc:
      case Action.SegmentMap:
        reservedDelta += size[i]!;
        break;
      case Action.SegmentFree:
      case Action.SegmentUnmap:
        reservedDelta -= size[i]!;
        break;
    }
  }
  if (doubleAllocs) warnings.push(`${doubleAllocs} allocations reuse a live address without a recorded free; each was closed at the reuse`);

  seedFromFinalState(t.device, segments, live, el, n, warnings);
  const elements = el.finish();
  const totals = accumulate(elements, n);

  let reservedEnd = 0;
  for (const s of segments) if (s.device === t.device) reservedEnd += s.totalSize;
  const reservedStart = reservedEnd - reservedDelta;
  if (reservedStart < 0)
    warnings.push(
      `segment events add up to more than the final reserved memory (${-reservedStart} bytes): the final state and the trace disagree`,
    );
  const stepIndex = i32();
  const stepBytes = f64();
  let r = reservedStart;
  let reservedPeak = { index: -1, bytes: reservedStart };
  for (let i = 0; i < n; i++) {
    const a = action[i]!;
    if (a === Action.SegmentAlloc || a === Action.SegmentMap) r += size[i]!;
    else if (a === Action.SegmentFree || a === Action.SegmentUnmap) r -= size[i]!;
    else continue;
    stepIndex.push(i);
    stepBytes.push(r);
    if (r > reservedPeak.bytes) reservedPeak = { index: i, bytes: r };
  }

  const at = (i: number): Instant => ({
    index: i,
    timeUs: i >= 0 && !Number.isNaN(t.timeUs[i]!) ? t.timeUs[i]! : null,
    requestedBytes: i >= 0 ? totals.requested[i]! : totals.start.requestedBytes,
    allocatedBytes: allocatedAt(elements, i),
  });
  let peakIndex = -1;
  let peakBytes = totals.start.requestedBytes;
  for (let i = 0; i < n; i++) {
    if (totals.requested[i]! > peakBytes) {
      peakBytes = totals.requested[i]!;
      peakIndex = i;
    }
  }
  return {
    device: t.device,
    n,
    timeUs: t.timeUs,
    requested: totals.requested,
    reservedSteps: { index: stepIndex.seal(), bytes: stepBytes.seal() },
    start: { ...totals.start, reservedBytes: reservedStart },
    peak: at(peakIndex),
    end: at(n - 1),
    reservedPeak,
    reservedEnd,
    elements,
    warnings,
  };
}

/**
 * Live blocks of the final state that the replay does not hold were allocated before the window
 * ("ghosts"). Blocks it does hold give the exact rounded size, and their stack when the trace had none.
 */
function seedFromFinalState(
  device: number,
  segments: readonly Segment[],
  live: AddrMap,
  el: ElementBuilder,
  n: number,
  warnings: string[],
): void {
  let mismatched = 0;
  const finalLive = new Set<number>();
  for (const s of segments) {
    if (s.device !== device) continue;
    for (const b of s.blocks) {
      if (b.state !== 'active_allocated' && b.state !== 'active_pending_free') continue;
      finalLive.add(b.address);
      const e = live.get(b.address);
      if (e >= 0) {
        el.rounded.data[e] = b.size;
        if (el.stack.data[e] === 0) el.stack.data[e] = b.stack;
        if (el.size.data[e] !== b.requestedSize) mismatched++;
      } else {
        const freeReq = b.state === 'active_pending_free' ? -1 : n;
        el.add(b.address, b.requestedSize, b.size, -1, freeReq, n, b.stack, 0, Origin.Ghost);
      }
    }
  }
  let lost = 0;
  live.forEachKey((a) => {
    if (!finalLive.has(a)) lost++;
  });
  if (mismatched) warnings.push(`${mismatched} live allocations differ in size from the final state's blocks`);
  if (lost && segments.some((s) => s.device === device)) {
    warnings.push(`${lost} allocations are live at the end of the trace but absent from the final state (their frees were not recorded)`);
  }
}

/** Prefix sums of the per-event deltas of requested bytes (exact). */
function accumulate(e: Elements, n: number) {
  const requested = new Float64Array(n);
  let startReq = 0;
  let startBlocks = 0;
  for (let k = 0; k < e.count; k++) {
    const s = e.size[k]!;
    const a = e.alloc[k]!;
    const f = e.free[k]!;
    if (a < 0) {
      startReq += s;
      startBlocks++;
    } else requested[a] = requested[a]! + s;
    if (f < n) requested[f] = requested[f]! - s;
  }
  let q = startReq;
  for (let i = 0; i < n; i++) {
    q += requested[i]!;
    requested[i] = q;
  }
  return { requested, start: { requestedBytes: startReq, allocatedBytes: allocatedAt(e, -1), blocks: startBlocks } };
}

/**
 * Allocated bytes (estimate: rounded sizes) just after event `index`. PyTorch's allocated figure
 * drops at free_requested, so that is where an element stops counting.
 */
export function allocatedAt(e: Elements, index: number): number {
  let sum = 0;
  for (let k = 0; k < e.count; k++) if (e.alloc[k]! <= index && e.freeRequested[k]! > index) sum += e.rounded[k]!;
  return sum;
}

/** Reserved bytes just after event `index` (-1: before the first event). */
export function reservedAt(r: Replay, index: number): number {
  const idx = r.reservedSteps.index;
  let lo = 0;
  let hi = idx.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (idx[mid]! <= index) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? r.start.reservedBytes : r.reservedSteps.bytes[lo - 1]!;
}

/**
 * The estimated allocated and active series (rounded sizes; active also holds pending frees),
 * built on demand: only the timeline draws them, so the replay does not keep them.
 */
export function estimateSeries(e: Elements, n: number): { allocated: Float64Array; active: Float64Array } {
  const allocated = new Float64Array(n);
  const active = new Float64Array(n);
  let al = 0;
  let ac = 0;
  for (let k = 0; k < e.count; k++) {
    const r = e.rounded[k]!;
    const a = e.alloc[k]!;
    const f = e.free[k]!;
    const fr = e.freeRequested[k]!;
    if (a < 0) {
      ac += r;
      if (fr >= 0) al += r;
    } else {
      allocated[a] = allocated[a]! + r;
      active[a] = active[a]! + r;
    }
    if (f < n) active[f] = active[f]! - r;
    if (fr >= 0 && fr < n) allocated[fr] = allocated[fr]! - r;
  }
  for (let i = 0; i < n; i++) {
    al += allocated[i]!;
    ac += active[i]!;
    allocated[i] = al;
    active[i] = ac;
  }
  return { allocated, active };
}

/** Ids of the elements live just after event `index` (-1: before the first event). */
export function liveAt(e: Elements, index: number): Int32Array {
  const out = i32();
  for (let k = 0; k < e.count; k++) if (e.alloc[k]! <= index && e.free[k]! > index) out.push(k);
  return out.seal();
}
