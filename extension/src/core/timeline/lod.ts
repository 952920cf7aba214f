import { reservedAt } from '../analysis/replay';
import { f64, i32 } from '../snapshot/columns';
import { eventAt } from './eventAt';
import type { KeyingName, TimelineModel } from './modelTypes';

export interface LodRequest {
  keying: KeyingName;
  /** 'index': from/to are event indices (step-count mode); 'time': epoch µs. */
  x: 'index' | 'time';
  from: number;
  to: number;
  columns: number;
  /** Blocks at least this big get a band of their own; smaller ones merge per group. */
  minBandBytes: number;
}

/**
 * One level of detail: per column, the state at one event (the column's highest requested bytes,
 * so no peak is ever hidden between pixels), as stacked bands bottom to top.
 */
export interface LodFrame {
  columns: number;
  /** Column c covers events [start[c], start[c+1]). */
  start: Int32Array;
  /** The event whose state column c shows (-1: before the first event). */
  sample: Int32Array;
  /** Requested bytes at the sample (the column's maximum) and the column's minimum. */
  requested: Float64Array;
  requestedMin: Float64Array;
  /** Estimated allocated and reserved bytes at the sample. */
  allocated: Float64Array;
  reserved: Float64Array;
  /** Bands of column c are [bandOff[c], bandOff[c+1]): an element id, or -(key+1) for a group's small blocks. */
  bandOff: Int32Array;
  band: Int32Array;
  bandKey: Int32Array;
  bandBytes: Float64Array;
  /** Blocks in the band (1 for an element's own band). */
  bandCount: Int32Array;
}

export const MAX_COLUMNS = 8192;

function columnStarts(m: TimelineModel, q: LodRequest, W: number): Int32Array {
  const start = new Int32Array(W + 1);
  const n = m.n;
  const time = m.analysis.replay.timeUs;
  const w = (q.to - q.from) / W;
  for (let c = 0; c <= W; c++) {
    const x = q.from + c * w;
    const i = q.x === 'time' && m.hasTime ? eventAt(time, n, x) : Math.ceil(x);
    start[c] = Math.min(n, Math.max(0, i, c > 0 ? start[c - 1]! : 0));
  }
  return start;
}

export function lod(m: TimelineModel, q: LodRequest): LodFrame {
  const W = Math.max(1, Math.min(MAX_COLUMNS, Math.floor(q.columns)));
  const r = m.analysis.replay;
  const e = r.elements;
  const size = e.size;
  const kg = m.keyings[q.keying];
  const key = kg.key;
  const K = kg.keys.length;
  const min = Math.max(1, q.minBandBytes);
  const start = columnStarts(m, q, W);

  // The state before the first column: a checkpoint, then the events after it.
  const j = Math.floor(start[0]! / kg.every);
  const bytes = kg.bytes.slice(j * K, (j + 1) * K);
  const counts = kg.counts.slice(j * K, (j + 1) * K);
  const on = new Uint8Array(e.count);
  const lists: number[][] = Array.from({ length: K }, () => []);
  const apply = (i: number, track: boolean) => {
    for (let p = m.evOff[i]!; p < m.evOff[i + 1]!; p++) {
      const it = m.evItem[p]!;
      const k = Math.abs(it) - 1;
      const g = key[k]!;
      if (it > 0) {
        bytes[g]! += size[k]!;
        counts[g]!++;
        if (track && size[k]! >= min) {
          lists[g]!.push(k);
          on[k] = 1;
        }
      } else {
        bytes[g]! -= size[k]!;
        counts[g]!--;
        on[k] = 0;
      }
    }
  };
  for (let i = j * kg.every; i < start[0]!; i++) apply(i, false);
  // Big blocks alive before the first column, bottom to top: pre-trace ones first, then by alloc.
  const s0 = start[0]!;
  for (const pre of [true, false]) {
    for (let k = 0; k < e.count; k++) {
      const a = e.alloc[k]!;
      if (a < 0 !== pre || a >= s0 || e.free[k]! < s0 || size[k]! < min) continue;
      lists[key[k]!]!.push(k);
      on[k] = 1;
    }
  }

  const f: LodFrame = {
    columns: W,
    start,
    sample: new Int32Array(W),
    requested: new Float64Array(W),
    requestedMin: new Float64Array(W),
    allocated: new Float64Array(W),
    reserved: new Float64Array(W),
    bandOff: new Int32Array(W + 1),
    band: new Int32Array(0),
    bandKey: new Int32Array(0),
    bandBytes: new Float64Array(0),
    bandCount: new Int32Array(0),
  };
  const band = i32(4 * W);
  const bandKey = i32(4 * W);
  const bandBytes = f64(4 * W);
  const bandCount = i32(4 * W);
  const req = r.requested;
  const at = (i: number) => (i >= 0 ? req[i]! : r.start.requestedBytes);
  let cursor = s0;
  for (let c = 0; c < W; c++) {
    const a = start[c]!;
    const b = start[c + 1]!;
    let s = a - 1;
    let lo = Infinity;
    for (let i = a; i < b; i++) {
      const v = req[i]!;
      if (s < a || v > req[s]!) s = i;
      if (v < lo) lo = v;
    }
    for (; cursor <= s; cursor++) apply(cursor, true);
    f.sample[c] = s;
    f.requested[c] = at(s);
    f.requestedMin[c] = a < b ? lo : at(s);
    f.allocated[c] = s >= 0 ? m.allocated[s]! : r.start.allocatedBytes;
    f.reserved[c] = reservedAt(r, s);
    f.bandOff[c] = band.length;
    for (const g of kg.order) {
      if (counts[g] === 0) continue;
      const list = lists[g]!;
      let big = 0;
      let nBig = 0;
      let w = 0;
      for (let x = 0; x < list.length; x++) {
        const k = list[x]!;
        if (!on[k]) continue;
        list[w++] = k;
        band.push(k);
        bandKey.push(g);
        bandBytes.push(size[k]!);
        bandCount.push(1);
        big += size[k]!;
        nBig++;
      }
      list.length = w;
      if (counts[g]! > nBig) {
        band.push(-(g + 1));
        bandKey.push(g);
        bandBytes.push(bytes[g]! - big);
        bandCount.push(counts[g]! - nBig);
      }
    }
  }
  f.bandOff[W] = band.length;
  f.band = band.seal();
  f.bandKey = bandKey.seal();
  f.bandBytes = bandBytes.seal();
  f.bandCount = bandCount.seal();
  return f;
}
