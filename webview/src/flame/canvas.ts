import { plain as shown } from '../../../extension/src/shared/text';
import { cssVar } from '../timeline/colors';
import type { FlameRect } from './layout';

/** Row height in CSS pixels, and the narrowest frame that gets its label written in it. */
export const ROW_PX = 20;
const LABEL_MIN_PX = 36;

export interface DrawOptions {
  selected: number | undefined;
  /** Search hits; with `searching`, the other frames are dimmed. */
  matches: ReadonlySet<number>;
  searching: boolean;
}

interface Colours {
  user: string;
  library: string;
  bucket: string;
  tensor: string;
  text: string;
  gap: string;
  match: string;
  focus: string;
  font: string;
}

/**
 * Draws laid-out frames on a canvas (20,000 frames in a few milliseconds, where as many elements
 * took seconds to lay out) and finds the frame under a point. Colours are the theme's own.
 */
export class FlameCanvas {
  private rows: FlameRect[][] = [];
  private colours = this.readTheme();

  constructor(readonly canvas: HTMLCanvasElement) {}

  readTheme(): Colours {
    const font = `12px ${cssVar('--vscode-font-family', 'sans-serif')}`;
    return (this.colours = {
      user: cssVar('--vscode-charts-blue', '#3794ff'),
      library: cssVar('--vscode-charts-purple', '#b180d7'),
      bucket: cssVar('--vscode-descriptionForeground', '#8b8b8b'),
      tensor: cssVar('--vscode-charts-green', '#89d185'),
      text: cssVar('--vscode-editor-background', '#1e1e1e'),
      gap: cssVar('--vscode-editor-background', '#1e1e1e'),
      match: cssVar('--vscode-charts-yellow', '#cca700'),
      focus: cssVar('--vscode-focusBorder', '#007fd4'),
      font,
    });
  }

  draw(rects: readonly FlameRect[], width: number, o: DrawOptions): void {
    const dpr = window.devicePixelRatio || 1;
    const depth = rects.reduce((d, r) => Math.max(d, r.depth + 1), 0);
    const height = depth * ROW_PX;
    const c = this.canvas;
    c.style.width = `${width}px`;
    c.style.height = `${height}px`;
    c.width = Math.max(1, Math.round(width * dpr));
    c.height = Math.max(1, Math.round(height * dpr));
    const g = c.getContext('2d')!;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = this.colours.font;
    g.textBaseline = 'middle';
    this.rows = Array.from({ length: depth }, () => []);
    let selected: FlameRect | undefined;
    for (const r of rects) {
      this.rows[r.depth]!.push(r);
      const y = r.depth * ROW_PX;
      const hit = o.matches.has(r.node.id);
      g.globalAlpha = o.searching && !hit ? 0.35 : 1;
      g.fillStyle = this.colours[r.node.kind];
      // A hairline of the background at the right separates neighbours.
      g.fillRect(r.x, y, Math.max(r.w - (r.w > 3 ? 1 : 0), 0.5), ROW_PX - 1);
      if (hit) {
        g.strokeStyle = this.colours.match;
        g.lineWidth = 2;
        g.strokeRect(r.x + 1, y + 1, Math.max(r.w - 3, 0.5), ROW_PX - 3);
      }
      if (r.w >= LABEL_MIN_PX) {
        g.save();
        g.beginPath();
        g.rect(r.x + 3, y, r.w - 7, ROW_PX);
        g.clip();
        g.fillStyle = this.colours.text;
        g.fillText(shown(r.node.label), r.x + 4, y + ROW_PX / 2);
        g.restore();
      }
      if (r.node.id === o.selected) selected = r;
    }
    g.globalAlpha = 1;
    if (selected) {
      g.strokeStyle = this.colours.focus;
      g.lineWidth = 2;
      g.strokeRect(selected.x + 1, selected.depth * ROW_PX + 1, Math.max(selected.w - 2, 1), ROW_PX - 2);
    }
  }

  /** The frame under a point of the canvas (CSS pixels from its top left). */
  hit(x: number, y: number): FlameRect | undefined {
    const row = this.rows[Math.floor(y / ROW_PX)];
    if (!row) return undefined;
    // Each row is drawn left to right: a binary search on x.
    let lo = 0;
    let hi = row.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = row[mid]!;
      if (x < r.x) hi = mid - 1;
      else if (x >= r.x + r.w) lo = mid + 1;
      else return r;
    }
    return undefined;
  }
}
