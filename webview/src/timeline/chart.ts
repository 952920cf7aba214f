import type { Marker, MarkerKind } from '../../../extension/src/core/timeline/protocol';
import type { Theme } from './colors';
import { formatBytes as bytes, count, duration } from '../../../extension/src/shared/format';
import { columnAt, rasterize } from './raster';
import type { Paint, Placed } from './raster';
import { byteTicks, ticks, toScreen } from './viewport';
import type { Viewport } from './viewport';

/** A series drawn as a line: its points' x (data) and y (bytes). */
export interface Series {
  name: 'requested' | 'allocated' | 'reserved' | 'device' | 'process';
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

const GLYPH: Record<MarkerKind, string> = {
  peak: '▲',
  oom: '✕',
  snapshot: '●',
  empty_cache: '▼',
  optimizer: '◆',
  iteration: '|',
  backward: '·',
  window: '◇',
};

/** The plot: a pixel buffer for the bands, then lines, markers, axes with a 2D context. */
export class Chart {
  readonly ctx: CanvasRenderingContext2D;
  dpr = 1;
  /** Plot area in device pixels. */
  plot = { x: 0, y: 0, w: 1, h: 1 };
  /** The bands, column-major (see rasterize), and a canvas to turn them upright from. */
  private image: ImageData | undefined;
  private readonly bands = document.createElement('canvas');
  /** The last draw's parts (ms), for the benchmark. */
  parts = { raster: 0, put: 0, axes: 0, lines: 0, marks: 0 };

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
    this.plot = {
      x: Math.round(64 * d),
      y: Math.round(18 * d),
      w: Math.max(1, w - Math.round(72 * d)),
      h: Math.max(1, h - Math.round(40 * d)),
    };
    if (!this.image || this.image.width !== this.plot.h || this.image.height !== this.plot.w) {
      this.image = new ImageData(this.plot.h, this.plot.w);
      this.bands.width = this.plot.h;
      this.bands.height = this.plot.w;
    }
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
    const t0 = performance.now();
    rasterize(new Uint32Array(img.data.buffer), p.w, p.h, s.view, s.yMax, s.frames, s.paint);
    const t1 = performance.now();
    this.bands.getContext('2d')!.putImageData(img, 0, 0);
    // Image x is height above the axis, image y the screen column: rotate a quarter turn into place.
    ctx.imageSmoothingEnabled = false;
    ctx.setTransform(0, -1, 1, 0, p.x, p.y + p.h);
    ctx.drawImage(this.bands, 0, 0);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    const t2 = performance.now();
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
      ctx.fillText(s.timeMode ? duration(x - s.t0) : `#${count(Math.round(x))}`, X(x), p.y + p.h + 4 * d);
    }

    const t3 = performance.now();
    for (const line of this.seriesOf(s)) {
      ctx.strokeStyle =
        line.name === 'reserved'
          ? t.reserved
          : line.name === 'allocated'
            ? t.allocated
            : line.name === 'device'
              ? t.device
              : line.name === 'process'
                ? t.process
                : t.requested;
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

    const t4 = performance.now();
    // Markers on a strip above the plot. They come sorted by event (so by time too): start at the
    // window, one glyph per kind and 4 px, however many thousands of steps the trace has.
    ctx.textBaseline = 'bottom';
    const last = new Map<MarkerKind, number>();
    const key = (m: Marker) => (s.timeMode ? (m.timeUs ?? -Infinity) : m.index);
    let lo = 0;
    for (let hi = s.markers.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (key(s.markers[mid]!) < s.view.from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < s.markers.length; i++) {
      const m = s.markers[i]!;
      const x = key(m);
      if (x > s.view.to) break;
      if (!Number.isFinite(x)) continue;
      const sx = Math.round(X(x));
      if ((last.get(m.kind) ?? -Infinity) > sx - 4 * d) continue;
      last.set(m.kind, sx);
      ctx.fillStyle =
        m.kind === 'peak' || m.kind === 'oom'
          ? t.peak
          : m.kind === 'empty_cache'
            ? t.reserved
            : m.kind === 'optimizer'
              ? t.allocated
              : t.muted;
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
    this.parts = { raster: t1 - t0, put: t2 - t1, axes: t3 - t2, lines: t4 - t3, marks: performance.now() - t4 };
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
