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

/**
 * Paints the stacked bands into a pixel buffer, one screen column at a time: each column shows the
 * frame column under it (or the fallback's, outside the frame), bottom up, a band's rows from the
 * rounded running total so bands never leave gaps. Cost: width × height at most, whatever the data.
 */
export function rasterize(out: Uint32Array, width: number, height: number, v: Viewport, yMax: number, frames: readonly Placed[], paint: Paint): void {
  out.fill(0);
  const scale = height / yMax;
  for (let px = 0; px < width; px++) {
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
    if (!p) continue;
    const fr = p.frame;
    let cum = 0;
    let row = 0;
    for (let b = fr.bandOff[c]!; b < fr.bandOff[c + 1]!; b++) {
      cum += fr.bandBytes[b]!;
      const top = Math.min(height, Math.round(cum * scale));
      if (top <= row) continue;
      const el = fr.band[b]!;
      const base = el >= 0 && el === paint.selected ? paint.highlight : paint.color(fr.bandKey[b]!, el);
      const edge = el >= 0 && top - row >= 3;
      for (let y = row; y < top; y++) {
        let col = base;
        // Merged small blocks are hatched; an element's own band gets a darker top edge.
        if (el < 0 && ((px + y) & 3) < 2) col = (col & 0x00ffffff) | (((col >>> 24) >> 1) << 24);
        else if (edge && y === top - 1) col = (col & 0xff000000) | ((col & 0xfefefe) >> 1);
        out[(height - 1 - y) * width + px] = col;
      }
      row = top;
      if (row >= height) break;
    }
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
