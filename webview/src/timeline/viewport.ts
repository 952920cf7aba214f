/** The visible stretch of the x axis (event indices, or epoch µs in time mode), within [min, max]. */
export interface Viewport {
  from: number;
  to: number;
  min: number;
  max: number;
}

/** The narrowest window: a few events, or 20 µs. */
export function minSpan(v: Viewport, timeMode: boolean): number {
  return Math.min(v.max - v.min, timeMode ? 20 : 8);
}

export function clampView(v: Viewport, timeMode: boolean): Viewport {
  const full = v.max - v.min;
  let span = Math.max(minSpan(v, timeMode), Math.min(full, v.to - v.from));
  if (!Number.isFinite(span) || span <= 0) span = full;
  let from = Math.min(Math.max(v.from, v.min), v.max - span);
  if (!Number.isFinite(from)) from = v.min;
  return { ...v, from, to: from + span };
}

/** Zooms by `factor` (< 1 zooms in) keeping data point `at` under the same pixel. */
export function zoomAt(v: Viewport, at: number, factor: number, timeMode: boolean): Viewport {
  const from = at - (at - v.from) * factor;
  const to = at + (v.to - at) * factor;
  return clampView({ ...v, from, to }, timeMode);
}

export function panBy(v: Viewport, delta: number, timeMode: boolean): Viewport {
  return clampView({ ...v, from: v.from + delta, to: v.to + delta }, timeMode);
}

export const toData = (v: Viewport, px: number, width: number): number => v.from + (px / width) * (v.to - v.from);
export const toScreen = (v: Viewport, x: number, width: number): number => ((x - v.from) / (v.to - v.from)) * width;

/** "Nice" tick values (1, 2, 5 × 10^k) between lo and hi, about `count` of them. */
export function ticks(lo: number, hi: number, count: number): number[] {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(t);
  return out;
}

/** Byte ticks at powers-of-two-friendly steps (multiples of 1, 2, 5 × 2^(10k) units). */
export function byteTicks(max: number, count: number): number[] {
  if (!(max > 0)) return [0];
  const unit = 1024 ** Math.max(0, Math.floor(Math.log(max) / Math.log(1024)));
  return ticks(0, max / unit, count).map((t) => t * unit);
}
