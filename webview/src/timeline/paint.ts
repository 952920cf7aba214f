import type { FromTimeline, TimelineInit } from '../../../extension/src/core/timeline/protocol';
import { count } from '../../../extension/src/shared/format';
import type { Chart } from './chart';
import { keyColor } from './colors';
import type { Theme } from './colors';
import type { LiveFeed } from './live';
import type { Minimap } from './minimap';
import { columnAt } from './raster';
import type { Placed } from './raster';
import type { SidePanel } from './side';
import type { UiState } from './state';
import type { FrameData } from './store';
import type { Viewport } from './viewport';

/** The pointer over the plot, in canvas CSS pixels, and the primary frame's band under it (-1: none). */
export interface Hover {
  band: number;
  cx: number;
  cy: number;
}

/** What a draw reads of the page, all of it read-only. */
export interface PageView {
  readonly view: Readonly<Viewport>;
  readonly timeMode: boolean;
  readonly state: Readonly<UiState>;
  readonly live: LiveFeed;
  readonly data: FrameData;
  readonly hovered: Hover | undefined;
  readonly cursor: number | null;
  readonly cursorBand: number;
  yMax(): number;
  dataXAt(cx: number): number | undefined;
  post(m: FromTimeline): void;
  unpin(): void;
}

/** Where a draw goes, in which colours. */
export interface Surfaces {
  chart: Chart;
  minimap: Minimap;
  side: SidePanel;
  theme: Theme;
}

/** Draws the plot, the minimap and the side panel as the page stands; false when there is nothing to draw. */
export function paint(p: PageView, to: Surfaces): boolean {
  to.chart.layout();
  const live = p.live.active;
  const m = p.data.init;
  if (!m && !live) return false;
  const colorOf = (key: number, element = -1) => keyColor(to.theme, p.state.keying, key, element);
  const yMax = p.yMax();
  const x = p.timeMode ? 'time' : 'index';
  const frames = live ? [] : p.data.framesInView(x);
  const primary = frames[0] === p.data.primary ? p.data.primary : undefined;
  to.chart.draw({
    view: p.view,
    timeMode: p.timeMode || live,
    t0: live ? p.live.t0 : (m?.timeRange?.[0] ?? 0),
    yMax,
    frames,
    paint: { color: colorOf, selected: selectedElement(p, primary), highlight: to.theme.highlight },
    series: live ? p.live.series() : [],
    markers: live ? p.live.markers : m!.markers,
    instant: live || !m ? null : p.timeMode ? m.instant.timeUs : m.instant.index,
    cursor: p.cursor,
  });
  const fb = p.data.fallbackFor(x);
  to.minimap.draw(
    live ? { ...p.view, min: p.live.t0, max: Math.max(p.live.t1, p.live.t0 + 1) } : p.view,
    fb ? { f: fb.frame, from: fb.from, to: fb.to } : undefined,
    m?.maxBytes ?? yMax,
  );
  if (!live && m) drawSide(p, m, primary, to.side, (k) => colorOf(k));
  return true;
}

/** The element to highlight: hovered, else the keyboard's, else the pinned one. */
function selectedElement(p: PageView, primary: Placed | undefined): number {
  const b = p.hovered?.band ?? (p.cursorBand >= 0 ? p.cursorBand : -1);
  if (primary && b >= 0 && b < primary.frame.band.length) return primary.frame.band[b]!;
  return p.state.pinned ?? -1;
}

function drawSide(
  p: PageView,
  m: Readonly<TimelineInit>,
  primary: Placed | undefined,
  side: SidePanel,
  colorOf: (key: number) => number,
): void {
  // The legend follows the keyboard cursor, else the pointer, else the instant.
  const hoverX = p.hovered ? p.dataXAt(p.hovered.cx) : undefined;
  const at = p.cursor ?? hoverX ?? (p.timeMode ? (m.instant.timeUs ?? m.timeRange?.[0] ?? 0) : m.instant.index);
  const c = p.data.primary ? columnAt(p.data.primary, at) : -1;
  const pinnedId = p.state.pinned;
  side.show({
    init: m,
    keying: p.state.keying,
    frame: primary?.frame,
    column: c,
    where: c >= 0 && primary ? `at event #${count(primary.frame.sample[c]!)}` : 'at the instant',
    pinnedId,
    pinned: pinnedId !== null ? p.data.element(pinnedId) : undefined,
    colorOf,
    open: (file, line) => p.post({ type: 'openFrame', file, line }),
    unpin: () => p.unpin(),
  });
}
