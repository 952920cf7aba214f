import type { LodFrame } from '../../../extension/src/core/timeline/protocol';
import type { Viewport } from './viewport';

/** A frame and the stretch of the x axis its columns cover. */
export interface Placed {
  frame: LodFrame;
  from: number;
  to: number;
}

export interface Paint {
  /** Packed RGBA (little-endian ABGR) for a band: its key, its element (-1 for merged small blocks). */
  color(key: number, element: number): number;
  /** The element under the pointer, the keyboard cursor or pinned: highlighted along its whole life. */
  selected: number;
  highlight: number;
}

/** The frame column that shows data point x, or -1 when the frame does not cover it. */
export function columnAt(p: Placed, x: number): number {
  const c = Math.floor(((x - p.from) / (p.to - p.from)) * p.frame.columns);
  return c >= 0 && c < p.frame.columns ? c : -1;
}

/** Striped columns (diagonal hatching at half alpha) per colour, for the current height. */
const hatches = new Map<number, Uint32Array>();
let hatchHeight = 0;

function hatch(color: number, height: number): Uint32Array {
  let h = hatches.get(color);
  if (!h) {
    const half = (color & 0x00ffffff) | (((color >>> 24) >> 1) << 24);
    h = new Uint32Array(height + 4);
    for (let y = 0; y < h.length; y++) h[y] = (y & 3) < 2 ? half : color;
    hatches.set(color, h);
  }
  return h;
}

/**
 * Paints the stacked bands into a column-major pixel buffer: screen column px is
 * out[px × height ...], bottom row first, so a band is one `fill` (the chart draws the buffer
 * rotated into place). Each screen column shows the frame column under it (or the fallback's,
 * outside the frame), bottom up, a band's rows from the rounded running total so bands never
 * leave gaps. Cost: width × height at most, whatever the data.
 */
export function rasterize(
  out: Uint32Array,
  width: number,
  height: number,
  v: Viewport,
  yMax: number,
  frames: readonly Placed[],
  paint: Paint,
): void {
  const scale = height / yMax;
  if (hatches.size > 64 || hatchHeight !== height) hatches.clear();
  hatchHeight = height;
  for (let px = 0; px < width; px++) {
    const at = px * height;
    const x = v.from + ((px + 0.5) / width) * (v.to - v.from);
    let p: Placed | undefined;
    let c = -1;
    for (const f of frames) {
      c = columnAt(f, x);
      if (c >= 0) {
        p = f;
        break;
      }
    }
    let row = 0;
    if (p) {
      const fr = p.frame;
      let cum = 0;
      for (let b = fr.bandOff[c]!; b < fr.bandOff[c + 1]!; b++) {
        cum += fr.bandBytes[b]!;
        const top = Math.min(height, Math.round(cum * scale));
        if (top <= row) continue;
        const el = fr.band[b]!;
        const base = el >= 0 && el === paint.selected ? paint.highlight : paint.color(fr.bandKey[b]!, el);
        if (el < 0) {
          // Merged small blocks are hatched: a copy from the colour's striped column, shifted per x.
          const phase = px & 3;
          out.set(hatch(base, height).subarray(row + phase, top + phase), at + row);
        } else {
          // An element's own band gets a darker top edge. Short runs are a loop: a call to fill
          // costs more than a few stores, and most bands are a few pixels tall.
          const end = top - row >= 3 ? top - 1 : top;
          if (end - row > 16) out.fill(base, at + row, at + end);
          else for (let y = at + row; y < at + end; y++) out[y] = base;
          if (end < top) out[at + end] = (base & 0xff000000) | ((base & 0xfefefe) >> 1);
        }
        row = top;
        if (row >= height) break;
      }
    }
    if (row < height) out.fill(0, at + row, at + height);
  }
}

/** The band of frame `p` drawn at pixel (px, py), py from the top; -1 for none. */
export function bandAt(p: Placed, v: Viewport, width: number, height: number, yMax: number, px: number, py: number): number {
  const x = v.from + ((px + 0.5) / width) * (v.to - v.from);
  const c = columnAt(p, x);
  if (c < 0) return -1;
  const y = height - 1 - py;
  const scale = height / yMax;
  let cum = 0;
  let row = 0;
  for (let b = p.frame.bandOff[c]!; b < p.frame.bandOff[c + 1]!; b++) {
    cum += p.frame.bandBytes[b]!;
    const top = Math.round(cum * scale);
    if (y >= row && y < top) return b;
    row = Math.max(row, top);
  }
  return -1;
}

/** The column's bands, bottom to top, for keyboard navigation. */
export function bandsOf(p: Placed, x: number): number[] {
  const c = columnAt(p, x);
  if (c < 0) return [];
  const out: number[] = [];
  for (let b = p.frame.bandOff[c]!; b < p.frame.bandOff[c + 1]!; b++) out.push(b);
  return out;
}
