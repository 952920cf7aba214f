import type { Marker, MarkerKind } from '../../../extension/src/core/timeline/protocol';
import type { Theme } from './colors';
import { bytes, duration } from '../format';
import { columnAt, rasterize } from './raster';
import type { Paint, Placed } from './raster';
import { byteTicks, ticks, toScreen } from './viewport';
import type { Viewport } from './viewport';

/** A series drawn as a line: its points' x (data) and y (bytes). */
export interface Series {
  name: 'requested' | 'allocated' | 'reserved' | 'device';
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

export interface Scene {
  view: Viewport;
  timeMode: boolean;
  /** x origin for time labels (the first event's time). */
  t0: number;
  yMax: number;
  frames: Placed[];
  paint: Paint;
  /** Series taken from the frames' columns, or given (live mode). */
  series: Series[];
  markers: Marker[];
  instant: number | null;
  cursor: number | null;
}

const GLYPH: Record<MarkerKind, string> = { peak: '▲', oom: '✕', snapshot: '●', empty_cache: '▼', optimizer: '◆', iteration: '|', backward: '·' };

/** The plot: a pixel buffer for the bands, then lines, markers, axes with a 2D context. */
export class Chart {
  readonly ctx: CanvasRenderingContext2D;
  dpr = 1;
  /** Plot area in device pixels. */
  plot = { x: 0, y: 0, w: 1, h: 1 };
  private image: ImageData | undefined;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private theme: Theme,
  ) {
    this.ctx = canvas.getContext('2d')!;
  }

  setTheme(t: Theme): void {
    this.theme = t;
  }

  layout(): void {
    this.dpr = window.devicePixelRatio || 1;
    const w = Math.max(50, Math.round(this.canvas.clientWidth * this.dpr));
    const h = Math.max(50, Math.round(this.canvas.clientHeight * this.dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    const d = this.dpr;
    this.plot = { x: Math.round(64 * d), y: Math.round(18 * d), w: Math.max(1, w - Math.round(72 * d)), h: Math.max(1, h - Math.round(40 * d)) };
    if (!this.image || this.image.width !== this.plot.w || this.image.height !== this.plot.h) this.image = new ImageData(this.plot.w, this.plot.h);
  }

  /** Screen (CSS px, relative to the canvas) → plot pixel, or undefined outside the plot. */
  toPlot(cx: number, cy: number): { px: number; py: number } | undefined {
    const px = cx * this.dpr - this.plot.x;
    const py = cy * this.dpr - this.plot.y;
    return px >= 0 && py >= 0 && px < this.plot.w && py < this.plot.h ? { px, py } : undefined;
  }

  draw(s: Scene): void {
    const { ctx, plot: p, theme: t, dpr: d } = this;
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    const img = this.image!;
    rasterize(new Uint32Array(img.data.buffer), p.w, p.h, s.view, s.yMax, s.frames, s.paint);
    ctx.putImageData(img, p.x, p.y);
    const X = (x: number) => p.x + toScreen(s.view, x, p.w);
    const Y = (b: number) => p.y + p.h - (b / s.yMax) * p.h;

    ctx.font = `${11 * d}px var(--vscode-font-family, sans-serif)`;
    ctx.lineWidth = 1;
    ctx.strokeStyle = t.grid;
    ctx.fillStyle = t.muted;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const b of byteTicks(s.yMax, 5)) {
      ctx.beginPath();
      ctx.moveTo(p.x, Math.round(Y(b)) + 0.5);
      ctx.lineTo(p.x + p.w, Math.round(Y(b)) + 0.5);
      ctx.stroke();
      ctx.fillText(bytes(b), p.x - 6 * d, Y(b));
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const x of ticks(s.view.from, s.view.to, Math.max(2, Math.floor(p.w / (110 * d))))) {
      ctx.fillText(s.timeMode ? duration(x - s.t0) : `#${Math.round(x).toLocaleString('en-US')}`, X(x), p.y + p.h + 4 * d);
    }

    for (const line of this.seriesOf(s)) {
      ctx.strokeStyle = line.name === 'reserved' ? t.reserved : line.name === 'allocated' ? t.allocated : line.name === 'device' ? t.device : t.requested;
      ctx.lineWidth = (line.name === 'reserved' ? 1.5 : 1) * d;
      ctx.setLineDash(line.name === 'allocated' ? [4 * d, 3 * d] : []);
      ctx.beginPath();
      for (let i = 0; i < line.x.length; i++) {
        const x = X(line.x[i]!);
        const y = Y(line.y[i]!);
        if (i === 0) ctx.moveTo(x, y);
        else ctx.lineTo(x, y);
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);

    // Markers on a strip above the plot; one glyph per kind and pixel.
    ctx.textBaseline = 'bottom';
    const seen = new Set<string>();
    for (const m of s.markers) {
      const x = s.timeMode ? m.timeUs : m.index;
      if (x === null || x < s.view.from || x > s.view.to) continue;
      const sx = Math.round(X(x));
      const k = `${m.kind}:${Math.round(sx / (3 * d))}`;
      if (seen.has(k)) continue;
      seen.add(k);
      ctx.fillStyle = m.kind === 'peak' || m.kind === 'oom' ? t.peak : m.kind === 'empty_cache' ? t.reserved : m.kind === 'optimizer' ? t.allocated : t.muted;
      ctx.fillText(GLYPH[m.kind], sx, p.y - 2 * d);
      if (m.kind === 'peak' || m.kind === 'oom') {
        ctx.strokeStyle = t.peak;
        ctx.setLineDash([2 * d, 3 * d]);
        ctx.beginPath();
        ctx.moveTo(sx + 0.5, p.y);
        ctx.lineTo(sx + 0.5, p.y + p.h);
        ctx.stroke();
        ctx.setLineDash([]);
      }
    }
    for (const [x, color, width] of [
      [s.instant, t.instant, 2],
      [s.cursor, t.fg, 1],
    ] as const) {
      if (x === null || x < s.view.from || x > s.view.to) continue;
      ctx.strokeStyle = color;
      ctx.lineWidth = width * d;
      ctx.beginPath();
      ctx.moveTo(Math.round(X(x)) + 0.5, p.y);
      ctx.lineTo(Math.round(X(x)) + 0.5, p.y + p.h);
      ctx.stroke();
    }
  }

  /** Series from the primary frame: one point per screen column it covers. */
  private seriesOf(s: Scene): Series[] {
    if (s.series.length || !s.frames.length) return s.series;
    const f = s.frames[0]!;
    const xs: number[] = [];
    const req: number[] = [];
    const res: number[] = [];
    const all: number[] = [];
    for (let px = 0; px < this.plot.w; px++) {
      const x = s.view.from + ((px + 0.5) / this.plot.w) * (s.view.to - s.view.from);
      const c = columnAt(f, x);
      if (c < 0) continue;
      xs.push(x);
      req.push(f.frame.requested[c]!);
      res.push(f.frame.reserved[c]!);
      all.push(f.frame.allocated[c]!);
    }
    return [
      { name: 'reserved', x: xs, y: res },
      { name: 'allocated', x: xs, y: all },
      { name: 'requested', x: xs, y: req },
    ];
  }
}

