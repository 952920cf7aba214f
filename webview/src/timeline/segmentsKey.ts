import { formatBytes as bytes } from '../../../extension/src/shared/format';
import { el } from '../dom';
import type { Theme } from './colors';
import { cssOf } from './colors';

const TICKS = [0, 0.25, 0.5, 0.75, 1];

/**
 * What the segment bars mean: a legend of the block states (the colours SegmentsView.paint uses)
 * and a size axis. Bars are drawn to one scale, the biggest segment spanning the canvas, so the
 * axis runs from 0 to that segment's size.
 */
export class SegmentsKey {
  readonly legend = el('div', undefined, 'seg-legend');
  readonly axis = el('div', undefined, 'seg-axis');

  constructor() {
    this.legend.setAttribute('aria-label', 'Legend');
    this.axis.setAttribute('aria-hidden', 'true');
  }

  /** Swatches in the theme's colours; `request` adds the outline a fitting free block gets. */
  setTheme(t: Theme, request: number | undefined): void {
    const item = (label: string, title: string, fill: string, alpha: number, outline?: string) => {
      const sw = el('span', undefined, 'swatch');
      sw.style.background = fill;
      sw.style.opacity = String(alpha);
      if (outline) sw.style.outline = `2px solid ${outline}`;
      const li = el('span', undefined, 'seg-key');
      li.title = title;
      li.append(sw, el('span', label));
      return li;
    };
    this.legend.replaceChildren(
      item('allocated', 'Blocks in use', cssOf(t.palette[0]!), 1),
      item('pending free', 'Freed, waiting on a stream to finish before reuse', cssOf(t.palette[4]!), 1),
      item('hole', 'Free blocks between used ones: fragmentation', t.peak, 0.45),
      item('free', 'Free space at a segment’s ends', t.grid, 0.25),
      ...(request !== undefined ? [item(`fits ${bytes(request)}`, 'Free blocks the request fits in', 'transparent', 1, t.allocated)] : []),
    );
  }

  /** Ticks from 0 to the biggest segment's size, at the positions paint() draws those sizes. */
  setScale(biggest: number): void {
    this.axis.replaceChildren(
      ...TICKS.map((f) => {
        const t = el('span', bytes(f * biggest), 'tick');
        // paint() puts byte b of the biggest segment at 1 + (b / biggest) · (width − 2) CSS px.
        t.style.left = `calc(1px + ${f} * (100% - 2px))`;
        t.classList.add(f === 0 ? 'first' : f === 1 ? 'last' : 'mid');
        return t;
      }),
    );
    this.axis.hidden = biggest <= 0;
  }
}
