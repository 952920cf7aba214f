import type { LodFrame } from '../../../extension/src/core/timeline/protocol';
import type { Theme } from './colors';
import { clampView } from './viewport';
import type { Viewport } from './viewport';

/**
 * The whole trace in a strip (requested and reserved of the overview frame) with a brush on the
 * visible window: drag the brush to pan, drag elsewhere to select a new window, click to centre.
 */
export class Minimap {
  private readonly ctx: CanvasRenderingContext2D;
  private drag: { mode: 'move' | 'select'; x0: number; view0: Viewport } | undefined;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private theme: Theme,
    private readonly setView: (v: Viewport) => void,
    private readonly timeMode: () => boolean,
  ) {
    this.ctx = canvas.getContext('2d')!;
    canvas.addEventListener('pointerdown', (e) => this.down(e));
    canvas.addEventListener('pointermove', (e) => this.move(e));
    canvas.addEventListener('pointerup', (e) => this.up(e));
  }

  private view: Viewport | undefined;
  private frame: { f: LodFrame; from: number; to: number } | undefined;
  private yMax = 1;

  setTheme(t: Theme): void {
    this.theme = t;
  }

  private dataX(clientX: number): number {
    const v = this.view!;
    const r = this.canvas.getBoundingClientRect();
    return v.min + ((clientX - r.left) / Math.max(1, r.width)) * (v.max - v.min);
  }

  private down(e: PointerEvent): void {
    if (!this.view) return;
    const x = this.dataX(e.clientX);
    this.canvas.setPointerCapture(e.pointerId);
    this.drag = { mode: x >= this.view.from && x <= this.view.to ? 'move' : 'select', x0: x, view0: this.view };
  }

  private move(e: PointerEvent): void {
    const d = this.drag;
    if (!d) return;
    const x = this.dataX(e.clientX);
    const v =
      d.mode === 'move'
        ? { ...d.view0, from: d.view0.from + x - d.x0, to: d.view0.to + x - d.x0 }
        : { ...d.view0, from: Math.min(d.x0, x), to: Math.max(d.x0, x) };
    this.setView(clampView(v, this.timeMode()));
  }

  private up(e: PointerEvent): void {
    const d = this.drag;
    this.drag = undefined;
    if (!d) return;
    const x = this.dataX(e.clientX);
    const rect = this.canvas.getBoundingClientRect();
    const tiny = (Math.abs(x - d.x0) / (d.view0.max - d.view0.min)) * rect.width < 3;
    if (tiny && d.mode === 'select') {
      const span = d.view0.to - d.view0.from;
      this.setView(clampView({ ...d.view0, from: x - span / 2, to: x + span / 2 }, this.timeMode()));
    }
  }

  draw(view: Viewport, frame: { f: LodFrame; from: number; to: number } | undefined, yMax: number): void {
    this.view = view;
    this.frame = frame ?? this.frame;
    this.yMax = yMax;
    const c = this.canvas;
    const d = window.devicePixelRatio || 1;
    c.width = Math.max(1, Math.round(c.clientWidth * d));
    c.height = Math.max(1, Math.round(c.clientHeight * d));
    const ctx = this.ctx;
    const t = this.theme;
    ctx.clearRect(0, 0, c.width, c.height);
    const X = (x: number) => ((x - view.min) / (view.max - view.min)) * c.width;
    const fr = this.frame;
    if (fr) {
      for (const [ys, color] of [
        [fr.f.reserved, t.reserved],
        [fr.f.requested, t.requested],
      ] as const) {
        ctx.strokeStyle = color;
        ctx.lineWidth = d;
        ctx.beginPath();
        for (let i = 0; i < fr.f.columns; i++) {
          const x = X(fr.from + ((i + 0.5) / fr.f.columns) * (fr.to - fr.from));
          const y = c.height - (ys[i]! / this.yMax) * (c.height - 2 * d) - d;
          if (i === 0) ctx.moveTo(x, y);
          else ctx.lineTo(x, y);
        }
        ctx.stroke();
      }
    }
    ctx.fillStyle = t.instant;
    ctx.globalAlpha = 0.2;
    const x0 = X(view.from);
    const x1 = Math.max(x0 + 2 * d, X(view.to));
    ctx.fillRect(x0, 0, x1 - x0, c.height);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = t.instant;
    ctx.lineWidth = d;
    ctx.strokeRect(x0 + 0.5, 0.5, x1 - x0 - 1, c.height - 1);
  }
}
