import type { ParamRecords } from '../run/paramsFile';
import type { Replay } from './replay';

/** Record tensors of one device by address: built once per (records, device). */
const indexes = new WeakMap<ParamRecords, Map<number, Map<number, number[]>>>();

function byAddress(rec: ParamRecords, device: number): Map<number, number[]> {
  let per = indexes.get(rec);
  if (!per) indexes.set(rec, (per = new Map()));
  let m = per.get(device);
  if (!m) {
    const out = (m = new Map<number, number[]>());
    per.set(device, out);
    rec.tensors.forEach((t, i) => {
      if (t.device !== device || t.from >= t.to) return;
      const l = out.get(t.addr);
      if (l) l.push(i);
      else out.set(t.addr, [i]);
    });
  }
  return m;
}

/** First index in [lo, hi) of ascending `a` whose value is >= v. */
function lowerBound(a: Float64Array, v: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For each element of `live`, the record tensor (its index in `rec.tensors`, or -1) that an
 * optimizer step saw at the element's address, with its size, while the element was alive (from its
 * allocation until its free was requested): of several, the first after its allocation. An element
 * allocated before the trace began is matched to the observation nearest the trace; with no trace at
 * all (a bare segment list), to the latest. The address alone is never enough: the allocator hands a
 * freed gradient's address to the next tensor that fits. Cost: one map lookup per live block, plus
 * binary searches for those whose address a record holds.
 */
export function matchParams(r: Replay, device: number, live: Int32Array, rec: ParamRecords): Int32Array {
  const e = r.elements;
  const n = r.n;
  const time = r.timeUs;
  const addrs = byAddress(rec, device);
  let first = NaN;
  let last = NaN;
  for (let i = 0; i < n && Number.isNaN(first); i++) first = time[i]!;
  for (let i = n - 1; i >= 0 && Number.isNaN(last); i--) last = time[i]!;
  const at = (i: number) => (i < n ? time[i]! : Infinity);
  const out = new Int32Array(live.length).fill(-1);
  if (n > 0 && Number.isNaN(first)) return out; // no event times (torch < 2.2): no lifetimes to go by
  for (let j = 0; j < live.length; j++) {
    const k = live[j]!;
    const cands = addrs.get(e.addr[k]!);
    if (!cands) continue;
    const size = e.size[k]!;
    const al = e.alloc[k]!;
    const fr = e.freeRequested[k]!;
    const lo = al >= 0 ? at(al) : -Infinity;
    const hi = fr < 0 ? first : at(fr);
    if (Number.isNaN(lo) || Number.isNaN(hi)) continue;
    const knownStart = al >= 0 ? lo : first;
    const knownEnd = fr < n ? hi : last;
    let best = -1;
    let bestDist = Infinity;
    let bestT = Infinity;
    const consider = (c: number, t: number, d: number) => {
      if (d < bestDist || (d === bestDist && t < bestT)) [best, bestDist, bestT] = [c, d, t];
    };
    for (const c of cands) {
      const t = rec.tensors[c]!;
      if (t.bytes !== size) continue;
      const obs = rec.observations[t.opt]!;
      const i0 = lowerBound(obs, lo, t.from, Math.min(t.to, obs.length));
      const i1 = lowerBound(obs, hi, i0, Math.min(t.to, obs.length));
      if (i0 >= i1) continue;
      if (Number.isNaN(knownStart)) {
        consider(c, obs[i1 - 1]!, 0);
        continue;
      }
      const i2 = lowerBound(obs, knownStart, i0, i1);
      if (i2 < i1) consider(c, obs[i2]!, Math.max(0, obs[i2]! - knownEnd));
      if (i2 > i0) consider(c, obs[i2 - 1]!, knownStart - obs[i2 - 1]!);
    }
    out[j] = best;
  }
  return out;
}
