import type { ElementInfo, FromTimeline, LodRequest, TimelineInit, ToTimeline } from '../../../extension/src/core/timeline/protocol';
import { count } from '../../../extension/src/shared/format';
import { el } from '../dom';
import { plain as shown, plainLines as shownLines } from '../../../extension/src/shared/text';
import { Chart } from './chart';
import type { Series } from './chart';
import { readTheme, shade } from './colors';
import type { Theme } from './colors';
import { pinnedPanel } from './details';
import { fixFrame, MERGE_ALL } from './frames';
import type { Host } from './host';
import { renderLegend } from './legend';
import { LiveFeed } from './live';
import { Minimap } from './minimap';
import { bandAt, columnAt } from './raster';
import type { Placed } from './raster';
import { SegmentsView } from './segmentsView';
import { DEFAULT_STATE } from './state';
import type { UiState } from './state';
import { describeBand, fillTooltip, placeTooltip } from './tooltip';
import { clampView } from './viewport';
import type { Viewport } from './viewport';

export interface Dom {
  title: HTMLElement;
  canvas: HTMLCanvasElement;
  minimap: HTMLCanvasElement;
  tooltip: HTMLElement;
  side: HTMLElement;
  legend: HTMLElement;
  status: HTMLElement;
  timelineTab: HTMLElement;
  segmentsTab: HTMLElement;
  message: HTMLElement;
}

/** The timeline page: data from the host, the view the user steers, and drawing on demand. */
export class TimelineApp {
  theme: Theme = readTheme();
  state: UiState;
  init: TimelineInit | undefined;
  view: Viewport = { from: 0, to: 1, min: 0, max: 1 };
  primary: (Placed & { request: LodRequest; seq: number }) | undefined;
  /** Whole-trace frames per x mode (index: the init's overview), drawn where `primary` does not reach. */
  fallback = new Map<string, Placed>();
  readonly chart: Chart;
  readonly minimap: Minimap;
  readonly segments: SegmentsView;
  readonly live = new LiveFeed();
  readonly elements = new Map<number, ElementInfo>();
  private asked = new Set<number>();
  private seq = 0;
  private inflight: { seq: number; at: number } | undefined;
  private raf = 0;
  hover: { band: number; cx: number; cy: number } | undefined;
  cursor: number | null = null;
  cursorBand = -1;
  private sideKey = '';
  /** Bumped when the theme changes (colours in the legend). */
  themeGen = 0;
  get framesConverted(): number {
    return fixFrame.converted;
  }
  /** Set by the last draw, for tests and tools: how long it took (ms). */
  lastDrawMs = 0;

  constructor(
    readonly host: Host,
    readonly dom: Dom,
  ) {
    this.state = { ...DEFAULT_STATE, ...(host.getState<UiState>() ?? {}) };
    this.chart = new Chart(dom.canvas, this.theme);
    this.minimap = new Minimap(
      dom.minimap,
      this.theme,
      (v) => this.setView(v),
      () => this.timeMode,
    );
    this.segments = new SegmentsView(this.theme, this.state.seg, () => this.save());
    dom.segmentsTab.append(this.segments.root);
  }

  get timeMode(): boolean {
    return this.state.x === 'time' && !!this.init?.hasTime;
  }

  save(): void {
    this.host.setState(this.state);
  }

  post(m: FromTimeline): void {
    this.host.post(m);
  }

  onMessage(m: ToTimeline): void {
    switch (m.type) {
      case 'init':
        return this.onInit(m);
      case 'frame':
        if (!this.init || m.session !== this.init.session) return;
        if (this.inflight?.seq === m.seq) this.inflight = undefined;
        if (
          m.request.from === this.domainMin(m.request.x) &&
          m.request.to === this.domainMax(m.request.x) &&
          m.request.minBandBytes >= MERGE_ALL
        ) {
          this.fallback.set(m.request.x, { frame: fixFrame(m.frame), from: m.request.from, to: m.request.to });
        } else if (!this.primary || m.seq > this.primary.seq) {
          this.primary = { frame: fixFrame(m.frame), from: m.request.from, to: m.request.to, request: m.request, seq: m.seq };
        }
        this.invalidate();
        return this.request();
      case 'element':
        this.elements.set(m.info.id, m.info);
        // The tooltip asked for this element: fill in its line now rather than on the next move.
        if (this.hover && this.hover.band >= 0 && this.primary?.frame.band[this.hover.band] === m.info.id && !this.dom.tooltip.hidden) {
          fillTooltip(this.dom.tooltip, this.describe(this.hover.band));
          placeTooltip(this.dom.tooltip, this.hover.cx, this.hover.cy, this.dom.canvas.clientWidth, this.dom.canvas.clientHeight);
        }
        return this.invalidate();
      case 'instant':
        if (this.init && m.session === this.init.session) this.init.instant = { index: m.index, label: m.label, timeUs: m.timeUs };
        if (this.state.tab === 'segments') this.askSegments();
        return this.invalidate();
      case 'segments':
        if (this.init && m.session === this.init.session) this.segments.show(m);
        return;
      case 'live':
        this.live.add(m);
        this.dom.title.textContent = shown(m.title);
        if (m.reset) this.view = { min: this.live.t0, max: this.live.t1 + 1, from: this.live.t0, to: this.live.t1 + 1 };
        this.followLive();
        this.showMessage('');
        return this.invalidate();
      case 'empty':
        this.init = undefined;
        this.dom.title.textContent = 'Headroom: memory timeline';
        return this.showMessage(m.message);
    }
  }

  private onInit(m: TimelineInit): void {
    const same = this.init && this.init.path === m.path && this.init.device === m.device;
    this.init = m;
    this.live.clear();
    this.primary = undefined;
    this.fallback.clear();
    this.fallback.set('index', { frame: fixFrame(m.overview), from: 0, to: m.n });
    this.elements.clear();
    this.asked.clear();
    this.showMessage('');
    this.dom.title.textContent = `${shown(m.title)} · device ${m.device} · ${count(m.n)} events`;
    const w = this.state.window;
    const kept = w && w.path === m.path && w.device === m.device ? w : null;
    if (!same && !kept) this.state.pinned = null;
    this.state.path = m.path;
    this.state.device = m.device;
    this.resetView(kept ?? undefined);
    if (this.timeMode && !this.fallback.has('time')) this.requestFallback('time');
    this.request();
    if (this.state.tab === 'segments') this.askSegments();
    if (this.state.pinned !== null) this.askElement(this.state.pinned);
  }

  domainMax(x: 'index' | 'time'): number {
    const m = this.init!;
    return x === 'time' && m.timeRange ? m.timeRange[1] + 1 : Math.max(1, m.n);
  }

  domainMin(x: 'index' | 'time'): number {
    const m = this.init!;
    return x === 'time' && m.timeRange ? m.timeRange[0] : 0;
  }

  resetView(keep?: { from: number; to: number }): void {
    if (!this.init) return;
    const x = this.timeMode ? 'time' : 'index';
    const min = this.domainMin(x);
    const max = this.domainMax(x);
    this.view = clampView({ min, max, from: keep?.from ?? min, to: keep?.to ?? max }, this.timeMode);
    this.rememberWindow();
    this.invalidate();
  }

  private rememberWindow(): void {
    if (this.init) this.state.window = { path: this.init.path, device: this.init.device, from: this.view.from, to: this.view.to };
    this.save();
  }

  setView(v: Viewport): void {
    this.view = v;
    this.rememberWindow();
    this.invalidate();
    this.request();
  }

  requestFallback(x: 'index' | 'time'): void {
    if (!this.init) return;
    this.post({
      type: 'view',
      session: this.init.session,
      seq: ++this.seq,
      request: { keying: 'category', x, from: this.domainMin(x), to: this.domainMax(x), columns: 1024, minBandBytes: MERGE_ALL },
    });
  }

  /** Asks for the visible window at one column per device pixel, one request at a time. */
  request(): void {
    if (!this.init || this.live.active) return;
    if (this.inflight && performance.now() - this.inflight.at < 3000) return;
    this.chart.layout();
    const x = this.timeMode ? 'time' : 'index';
    const want: LodRequest = {
      keying: this.state.keying,
      x,
      from: this.view.from,
      to: this.view.to,
      columns: this.chart.plot.w,
      minBandBytes: Math.max(1, (2 * this.yMax()) / this.chart.plot.h),
    };
    const have = this.primary?.request;
    if (
      have &&
      have.keying === want.keying &&
      have.x === want.x &&
      have.from === want.from &&
      have.to === want.to &&
      have.columns === want.columns &&
      Math.abs(have.minBandBytes / want.minBandBytes - 1) < 0.25
    )
      return;
    this.inflight = { seq: ++this.seq, at: performance.now() };
    this.post({ type: 'view', session: this.init.session, seq: this.seq, request: want });
  }

  /** The y ceiling: locked, else the highest figure in view (from the best frame available). */
  yMax(): number {
    if (this.state.yLock) return this.state.yLock;
    if (this.live.active) return this.live.max(this.view) * 1.08 || 1;
    let max = 0;
    const frames = this.framesInView();
    for (const p of frames.length ? frames : [...this.fallback.values()]) {
      const f = p.frame;
      for (let c = 0; c < f.columns; c++) {
        const x0 = p.from + (c / f.columns) * (p.to - p.from);
        const x1 = p.from + ((c + 1) / f.columns) * (p.to - p.from);
        if (x1 < this.view.from || x0 > this.view.to) continue;
        max = Math.max(max, f.reserved[c]!, f.requested[c]!);
      }
      if (max > 0) break;
    }
    return (max || this.init?.maxBytes || 1) * 1.08;
  }

  framesInView(): Placed[] {
    const out: Placed[] = [];
    if (this.primary && this.primary.request.x === (this.timeMode ? 'time' : 'index')) out.push(this.primary);
    const fb = this.fallback.get(this.timeMode ? 'time' : 'index');
    if (fb) out.push(fb);
    return out;
  }

  colorOf(key: number, element = -1): number {
    const t = this.theme;
    const base =
      this.state.keying === 'category'
        ? (t.categories[key] ?? t.palette[0]!)
        : key === 0
          ? t.categories[5]!
          : t.palette[key % t.palette.length]!;
    return element >= 0 && element & 1 ? shade(base, 0.12) : base;
  }

  askElement(id: number): void {
    if (!this.init || this.elements.has(id) || this.asked.has(id)) return;
    this.asked.add(id);
    this.post({ type: 'element', session: this.init.session, id });
  }

  askSegments(): void {
    if (this.init) this.post({ type: 'segments', session: this.init.session, index: this.init.instant.index });
  }

  showMessage(text: string): void {
    this.dom.message.textContent = text;
    this.dom.message.hidden = !text;
  }

  invalidate(): void {
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => {
      this.raf = 0;
      this.draw();
    });
  }

  /** The primary frame's column under data x, for the legend and the keyboard. */
  columnAtX(x: number): number {
    return this.primary ? columnAt(this.primary, x) : -1;
  }

  draw(): void {
    const t0 = performance.now();
    this.chart.layout();
    const live = this.live.active;
    if (!this.init && !live) return;
    const yMax = this.yMax();
    const frames = live ? [] : this.framesInView();
    const primary = frames[0] === this.primary ? this.primary : undefined;
    const series: Series[] = live ? this.live.series() : [];
    this.chart.draw({
      view: this.view,
      timeMode: this.timeMode || live,
      t0: live ? this.live.t0 : (this.init?.timeRange?.[0] ?? 0),
      yMax,
      frames,
      paint: { color: (k, e) => this.colorOf(k, e), selected: this.selectedElement(primary), highlight: this.theme.highlight },
      series,
      markers: live ? this.live.markers : this.init!.markers,
      instant: live || !this.init ? null : this.timeMode ? this.init.instant.timeUs : this.init.instant.index,
      cursor: this.cursor,
    });
    const fb = this.fallback.get(this.timeMode ? 'time' : 'index');
    this.minimap.draw(
      live ? { ...this.view, min: this.live.t0, max: Math.max(this.live.t1, this.live.t0 + 1) } : this.view,
      fb ? { f: fb.frame, from: fb.from, to: fb.to } : undefined,
      this.init?.maxBytes ?? yMax,
    );
    if (!live && this.init) this.drawSide(primary);
    this.lastDrawMs = performance.now() - t0;
    this.dom.canvas.dataset.drawn = String(Number(this.dom.canvas.dataset.drawn ?? 0) + 1);
  }

  /** The element to highlight: hovered, else the keyboard's, else the pinned one. */
  private selectedElement(p: Placed | undefined): number {
    const b = this.hover?.band ?? (this.cursorBand >= 0 ? this.cursorBand : -1);
    if (p && b >= 0 && b < p.frame.band.length) return p.frame.band[b]!;
    return this.state.pinned ?? -1;
  }

  private drawSide(primary: Placed | undefined): void {
    const m = this.init!;
    // The legend follows the keyboard cursor, else the pointer, else the instant.
    const hoverX = this.hover ? this.dataXAt(this.hover.cx) : undefined;
    const at = this.cursor ?? hoverX ?? (this.timeMode ? (m.instant.timeUs ?? m.timeRange?.[0] ?? 0) : m.instant.index);
    const c = this.columnAtX(at);
    const where = c >= 0 && primary ? `at event #${count(primary.frame.sample[c]!)}` : 'at the instant';
    const pinned = this.state.pinned !== null ? this.elements.get(this.state.pinned) : undefined;
    // The DOM is rebuilt only when what it shows changed: a rebuild costs a layout in the next frame.
    // What the legend shows at that column: its bands' total and count (a new frame for the same
    // moment usually changes neither).
    let sum = 0;
    const f = primary?.frame;
    if (f && c >= 0) for (let b = f.bandOff[c]!; b < f.bandOff[c + 1]!; b++) sum += f.bandBytes[b]! * (f.bandKey[b]! + 1);
    const bands = f && c >= 0 ? f.bandOff[c + 1]! - f.bandOff[c]! : -1;
    const key = `${sum}|${bands}|${where}|${this.state.keying}|${this.state.pinned}|${pinned ? 1 : 0}|${this.themeGen}`;
    if (key === this.sideKey) return;
    this.sideKey = key;
    renderLegend(
      this.dom.legend,
      m.keys[this.state.keying],
      primary?.frame,
      c,
      (k) => this.colorOf(k),
      (f, l) => this.post({ type: 'openFrame', file: f, line: l }),
      this.state.keying === 'category' ? m.categoryRules : undefined,
      where,
    );
    const box = pinned
      ? pinnedPanel(
          pinned,
          m.timeRange?.[0] ?? null,
          (f, l) => this.post({ type: 'openFrame', file: f, line: l }),
          () => this.unpin(),
        )
      : el(
          'p',
          this.state.pinned !== null
            ? 'Loading the pinned block…'
            : 'Click a band to pin it: its stack, each frame opening its line. Click anywhere to show the code at that moment.',
          'muted',
        );
    this.dom.side.replaceChildren(box);
  }

  unpin(): void {
    this.state.pinned = null;
    this.save();
    this.invalidate();
  }

  /** Live: the window keeps its width and slides with the newest sample, unless the user looked back. */
  private followLive(): void {
    const v = this.view;
    const t1 = this.live.t1 + 1;
    const atEdge = v.to >= v.max - (v.to - v.from) * 0.02;
    const grown = { ...v, min: this.live.t0, max: Math.max(t1, this.live.t0 + 1) };
    this.view = atEdge
      ? clampView({ ...grown, from: v.from === v.min ? grown.min : v.from + (grown.max - v.max), to: grown.max }, true)
      : grown;
  }

  /** Data x under a canvas CSS x, or undefined outside the plot. */
  dataXAt(cx: number): number | undefined {
    const px = cx * this.chart.dpr - this.chart.plot.x;
    if (px < 0 || px >= this.chart.plot.w) return undefined;
    return this.view.from + ((px + 0.5) / this.chart.plot.w) * (this.view.to - this.view.from);
  }

  /** Pins the band under a plot pixel and moves the instant there. */
  clickAt(px: number, py: number): void {
    const p = this.primary;
    if (!this.init || !p) return;
    const x = this.view.from + ((px + 0.5) / this.chart.plot.w) * (this.view.to - this.view.from);
    const c = columnAt(p, x);
    if (c < 0) return;
    const b = bandAt(p, this.view, this.chart.plot.w, this.chart.plot.h, this.yMax(), px, py);
    if (b >= 0 && p.frame.band[b]! >= 0) {
      this.state.pinned = p.frame.band[b]!;
      this.askElement(this.state.pinned);
    }
    this.save();
    this.post({ type: 'setInstant', session: this.init.session, index: p.frame.sample[c]! });
    this.invalidate();
  }

  /** Centres the peak and puts the cursor on it. */
  goToPeak(): void {
    const m = this.init;
    if (!m) return;
    const mk = m.markers.find((k) => k.kind === 'peak');
    const x = this.timeMode ? (mk?.timeUs ?? this.view.from) : m.peak.index + 0.5;
    const half = (this.view.to - this.view.from) / 2;
    this.setView(clampView({ ...this.view, from: x - half, to: x + half }, this.timeMode));
    this.cursor = x;
    this.cursorBand = -1;
  }

  /** Enter on the keyboard cursor: pins its band (if one is selected) and sets the instant there. */
  commitCursor(): void {
    const p = this.primary;
    if (!this.init || !p || this.cursor === null) return;
    const c = columnAt(p, this.cursor);
    if (c < 0) return;
    if (this.cursorBand >= 0 && p.frame.band[this.cursorBand]! >= 0) {
      this.state.pinned = p.frame.band[this.cursorBand]!;
      this.askElement(this.state.pinned);
      this.save();
    }
    this.post({ type: 'setInstant', session: this.init.session, index: p.frame.sample[c]! });
  }

  /** Tooltip text for a band of the primary frame (asks for the block's details when missing). */
  describe(b: number): string {
    const p = this.primary!;
    const el = p.frame.band[b]!;
    const info = el >= 0 ? this.elements.get(el) : undefined;
    if (el >= 0 && !info) this.askElement(el);
    return shownLines(describeBand(p, b, this.init!.keys[this.state.keying][p.frame.bandKey[b]!]!.label, info));
  }
}
