import type { TimelineApp } from './app';
import { bandAt, columnAt } from './raster';
import { clampView, panBy } from './viewport';

/**
 * What a click or a key asks of the page, as changes through its methods: the keyboard cursor,
 * the window around it, the pinned block and the instant.
 */

/** Moves the keyboard cursor to data x (kept within the trace, panned into view), with no band selected. */
export function moveCursor(app: TimelineApp, x: number): void {
  const v = app.view;
  const at = Math.min(v.max, Math.max(v.min, x));
  if (at < v.from || at > v.to) app.setView(panBy(v, at - (v.from + v.to) / 2, app.timeMode || app.live.active));
  app.placeCursor(at);
}

/** Centres the peak and puts the cursor on it. */
export function goToPeak(app: TimelineApp): void {
  const m = app.init;
  if (!m) return;
  const v = app.view;
  const mk = m.markers.find((k) => k.kind === 'peak');
  const x = app.timeMode ? (mk?.timeUs ?? v.from) : m.peak.index + 0.5;
  const half = (v.to - v.from) / 2;
  app.setView(clampView({ ...v, from: x - half, to: x + half }, app.timeMode));
  app.placeCursor(x);
}

/** A click on a plot pixel: pins the band under it and moves the instant there. */
export function clickAt(app: TimelineApp, px: number, py: number): void {
  const p = app.primary;
  if (!app.init || !p) return;
  const { view, chart } = app;
  const c = columnAt(p, view.from + ((px + 0.5) / chart.plot.w) * (view.to - view.from));
  if (c < 0) return;
  const b = bandAt(p, view, chart.plot.w, chart.plot.h, app.yMax(), px, py);
  if (b >= 0 && p.frame.band[b]! >= 0) app.pin(p.frame.band[b]!);
  app.setInstant(p.frame.sample[c]!);
  app.invalidate();
}

/** Enter on the keyboard cursor: pins its band (if one is selected) and sets the instant there. */
export function commitCursor(app: TimelineApp): void {
  const p = app.primary;
  if (!app.init || !p || app.cursor === null) return;
  const c = columnAt(p, app.cursor);
  if (c < 0) return;
  if (app.cursorBand >= 0 && p.frame.band[app.cursorBand]! >= 0) app.pin(p.frame.band[app.cursorBand]!);
  app.setInstant(p.frame.sample[c]!);
}
