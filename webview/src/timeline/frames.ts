import type { LodFrame } from '../../../extension/src/core/timeline/protocol';

/** An overview request's band floor: the protocol's MERGE_ALL (JSON has no Infinity). */
export const MERGE_ALL = Number.MAX_VALUE;

/** Typed arrays may arrive as plain objects through some message paths: make them arrays again. */
export function fixFrame(f: LodFrame): LodFrame {
  if (ArrayBuffer.isView(f.band)) return f;
  fixFrame.converted++;
  const fix = <T>(v: unknown, C: { from(a: ArrayLike<number>): T }): T =>
    ArrayBuffer.isView(v) ? (v as T) : C.from(Object.values(v as object) as number[]);
  return {
    columns: f.columns,
    start: fix(f.start, Int32Array),
    sample: fix(f.sample, Int32Array),
    requested: fix(f.requested, Float64Array),
    requestedMin: fix(f.requestedMin, Float64Array),
    allocated: fix(f.allocated, Float64Array),
    reserved: fix(f.reserved, Float64Array),
    bandOff: fix(f.bandOff, Int32Array),
    band: fix(f.band, Int32Array),
    bandKey: fix(f.bandKey, Int32Array),
    bandBytes: fix(f.bandBytes, Float64Array),
    bandCount: fix(f.bandCount, Int32Array),
  };
}

/** How many frames arrived without typed arrays (for tests: VS Code's channel keeps them). */
fixFrame.converted = 0;
