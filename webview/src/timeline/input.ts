import { formatBytes as bytes, count } from '../../../extension/src/shared/format';
import type { TimelineApp } from './app';
import { showFlame } from './flameLink';
import { clickAt, commitCursor, goToPeak, moveCursor } from './navigate';
import { bandAt, bandsOf, columnAt } from './raster';
import { fillTooltip, placeTooltip } from './tooltip';
import { clampView, panBy, zoomAt } from './viewport';

const CLICK_SLOP = 4;

/**
 * Pointer, wheel and keyboard on the plot. Wheel zooms at the pointer (Shift or a sideways wheel
 * pans, Ctrl/Alt stretches y); drag pans; a click pins the band under it and sets the instant.
 * The keyboard walks a cursor over columns and bands and announces each step.
 */
export function bindInput(app: TimelineApp, announce: (text: string) => void): void {
  const { canvas, tooltip } = app.dom;
  let drag: { x0: number; y0: number; from: number; to: number; moved: boolean } | undefined;

  const span = () => app.view.to - app.view.from;
  const time = () => app.timeMode || app.live.active;
  const localX = (e: MouseEvent) => e.clientX - canvas.getBoundingClientRect().left;
  const localY = (e: MouseEvent) => e.clientY - canvas.getBoundingClientRect().top;

  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      const dx = e.deltaMode === 1 ? e.deltaX * 16 : e.deltaX;
      if (e.ctrlKey || e.altKey) {
        // Stretch y: a fixed ceiling the user scales, so small blocks grow into view.
        return app.lockY(Math.max(1024, app.yMax() * Math.exp(dy / 400)));
      }
      const w = canvas.clientWidth || 1;
      if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) return app.setView(panBy(app.view, ((e.shiftKey ? dy : dx) / w) * span(), time()));
      const at = app.dataXAt(localX(e)) ?? (app.view.from + app.view.to) / 2;
      app.setView(zoomAt(app.view, at, Math.exp(dy / 300), time()));
    },
    { passive: false },
  );

  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    canvas.setPointerCapture(e.pointerId);
    drag = { x0: e.clientX, y0: e.clientY, from: app.view.from, to: app.view.to, moved: false };
  });

  canvas.addEventListener('pointermove', (e) => {
    if (drag) {
      const dx = e.clientX - drag.x0;
      if (Math.abs(dx) + Math.abs(e.clientY - drag.y0) > CLICK_SLOP) drag.moved = true;
      if (drag.moved) {
        const w = app.chart.plot.w / app.chart.dpr || 1;
        app.setView(
          clampView(
            { ...app.view, from: drag.from - (dx / w) * (drag.to - drag.from), to: drag.to - (dx / w) * (drag.to - drag.from) },
            time(),
          ),
        );
        return;
      }
    }
    hoverAt(localX(e), localY(e));
  });

  canvas.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = undefined;
    if (!d || d.moved) return;
    const p = app.chart.toPlot(localX(e), localY(e));
    if (p) clickAt(app, p.px, p.py);
  });

  canvas.addEventListener('pointerleave', () => {
    app.setHover(undefined);
    tooltip.hidden = true;
  });

  function hoverAt(cx: number, cy: number): void {
    const pt = app.chart.toPlot(cx, cy);
    const p = app.primary;
    const b = pt && p && !app.live.active ? bandAt(p, app.view, app.chart.plot.w, app.chart.plot.h, app.yMax(), pt.px, pt.py) : -1;
    app.setHover(pt ? { band: b, cx, cy } : undefined);
    if (b >= 0) {
      fillTooltip(tooltip, app.describe(b));
      tooltip.hidden = false;
      const r = canvas.getBoundingClientRect();
      placeTooltip(tooltip, cx, cy, r.width, r.height);
    } else tooltip.hidden = true;
  }

  // Keyboard: the canvas is focusable; every step says where it landed.
  canvas.tabIndex = 0;
  canvas.addEventListener('keydown', (e) => {
    const p = app.primary;
    const step = span() / Math.max(1, app.chart.plot.w / app.chart.dpr);
    const cur = app.cursor ?? (app.view.from + app.view.to) / 2;
    const setCursor = (x: number) => moveCursor(app, x);
    let handled = true;
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowRight':
        setCursor(cur + (e.key === 'ArrowLeft' ? -1 : 1) * step * (e.shiftKey ? 10 : 1));
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        const bands = p ? bandsOf(p, cur).filter((b) => p.frame.bandBytes[b]! > 0) : [];
        if (!bands.length) break;
        const i = bands.indexOf(app.cursorBand);
        const next =
          i < 0
            ? e.key === 'ArrowUp'
              ? 0
              : bands.length - 1
            : Math.min(bands.length - 1, Math.max(0, i + (e.key === 'ArrowUp' ? 1 : -1)));
        app.placeCursor(app.cursor ?? cur, bands[next]!);
        break;
      }
      case '+':
      case '=':
        app.setView(zoomAt(app.view, cur, 0.5, time()));
        break;
      case '-':
      case '_':
        app.setView(zoomAt(app.view, cur, 2, time()));
        break;
      case 'PageUp':
      case 'PageDown':
        app.setView(panBy(app.view, (e.key === 'PageUp' ? -0.9 : 0.9) * span(), time()));
        break;
      case 'Home':
        app.setView(panBy(app.view, app.view.min - app.view.from, time()));
        setCursor(app.view.min);
        break;
      case 'End':
        app.setView(panBy(app.view, app.view.max - app.view.to, time()));
        setCursor(app.view.max - step);
        break;
      case '0':
        app.fit();
        break;
      case 'p':
      case 'P':
        goToPeak(app);
        break;
      case 'f':
      case 'F':
        showFlame(app);
        break;
      case 'Enter':
      case ' ':
        if (p && app.cursor !== null) commitCursor(app);
        break;
      case 'Escape':
        app.placeCursor(null);
        app.unpin();
        break;
      default:
        handled = false;
    }
    if (!handled) return;
    e.preventDefault();
    app.invalidate();
    announce(where());
  });

  function where(): string {
    const p = app.primary;
    if (!p || app.cursor === null) return '';
    if (app.cursorBand >= 0) return app.describe(app.cursorBand).replace(/\n/g, '. ');
    const c = columnAt(p, app.cursor);
    if (c < 0) return '';
    return `event #${count(p.frame.sample[c]!)}: ${bytes(p.frame.requested[c]!)} requested, ${bytes(p.frame.reserved[c]!)} reserved. Up and Down walk its blocks; Enter shows the code at that moment.`;
  }
}
