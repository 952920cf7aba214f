import type { FromTimeline, KeyingName, TimelineInit, ToTimeline } from '../../../extension/src/core/timeline/protocol';
import { count } from '../../../extension/src/shared/format';
import { plain as shown, plainLines as shownLines } from '../../../extension/src/shared/text';
import { Chart } from './chart';
import { readTheme } from './colors';
import { fixFrame } from './frames';
import type { Host } from './host';
import { LiveFeed } from './live';
import { Minimap } from './minimap';
import { paint } from './paint';
import type { Hover } from './paint';
import { SegmentsView } from './segmentsView';
import { SidePanel } from './side';
import { DEFAULT_STATE } from './state';
import type { UiState } from './state';
import { FrameStore } from './store';
import type { FrameData, Primary, XAxis } from './store';
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

/**
 * The timeline page: data from the host, the view the user steers, and drawing on demand. Its state
 * changes only through its methods, which save what is remembered and schedule the redraw.
 */
export class TimelineApp {
  readonly chart: Chart;
  readonly live = new LiveFeed();
  private readonly minimap: Minimap;
  private readonly segments: SegmentsView;
  private readonly store: FrameStore;
  private readonly sidePanel: SidePanel;
  private theme = readTheme();
  private readonly _state: UiState;
  private _view: Viewport = { from: 0, to: 1, min: 0, max: 1 };
  private hover: Hover | undefined;
  private _cursor: number | null = null;
  private _cursorBand = -1;
  private _lastDrawMs = 0;
  private raf = 0;

  constructor(
    readonly host: Host,
    readonly dom: Dom,
  ) {
    this._state = { ...DEFAULT_STATE, ...(host.getState<UiState>() ?? {}) };
    this.store = new FrameStore((m) => this.post(m));
    this.chart = new Chart(dom.canvas, this.theme);
    this.minimap = new Minimap(
      dom.minimap,
      this.theme,
      (v) => this.setView(v),
      () => this.timeMode,
    );
    this.segments = new SegmentsView(this.theme, this._state.seg, () => this.save());
    this.sidePanel = new SidePanel(dom.legend, dom.side);
    dom.segmentsTab.append(this.segments.root);
  }

  /** What the page remembers (change it through the methods below). */
  get state(): Readonly<UiState> {
    return this._state;
  }
  get init(): Readonly<TimelineInit> | undefined {
    return this.store.init;
  }
  get primary(): Primary | undefined {
    return this.store.primary;
  }
  /** The host's data, read-only. */
  get data(): FrameData {
    return this.store;
  }
  get view(): Readonly<Viewport> {
    return this._view;
  }
  /** The keyboard cursor (data x), or null; and the band of its column it selected (-1: none). */
  get cursor(): number | null {
    return this._cursor;
  }
  get cursorBand(): number {
    return this._cursorBand;
  }
  get hovered(): Hover | undefined {
    return this.hover;
  }
  /** How long the last draw took (ms), for tests and tools. */
  get lastDrawMs(): number {
    return this._lastDrawMs;
  }
  get framesConverted(): number {
    return fixFrame.converted;
  }
  get timeMode(): boolean {
    return this._state.x === 'time' && !!this.init?.hasTime;
  }
  private get xAxis(): XAxis {
    return this.timeMode ? 'time' : 'index';
  }

  post(m: FromTimeline): void {
    this.host.post(m);
  }

  private save(): void {
    this.host.setState(this._state);
  }

  onMessage(m: ToTimeline): void {
    switch (m.type) {
      case 'init':
        return this.onInit(m);
      case 'frame':
        if (!this.store.accept(m)) return;
        this.invalidate();
        return this.request();
      case 'element':
        this.store.addElement(m.info);
        // The tooltip asked for this element: fill in its line now rather than on the next move.
        if (this.hover && this.hover.band >= 0 && this.primary?.frame.band[this.hover.band] === m.info.id && !this.dom.tooltip.hidden) {
          fillTooltip(this.dom.tooltip, this.describe(this.hover.band));
          placeTooltip(this.dom.tooltip, this.hover.cx, this.hover.cy, this.dom.canvas.clientWidth, this.dom.canvas.clientHeight);
        }
        return this.invalidate();
      case 'instant':
        this.store.moveInstant(m);
        if (this._state.tab === 'segments') this.store.askSegments();
        return this.invalidate();
      case 'segments':
        if (this.store.isCurrent(m.session)) this.segments.show(m);
        return;
      case 'live':
        this.live.add(m);
        this.dom.title.textContent = shown(m.title);
        if (m.reset) this._view = this.live.wholeRun();
        this._view = this.live.follow(this._view);
        this.showMessage('');
        return this.invalidate();
      case 'empty':
        this.store.end();
        this.dom.title.textContent = 'Headroom: memory timeline';
        return this.showMessage(m.message);
    }
  }

  private onInit(m: TimelineInit): void {
    const same = this.init && this.init.path === m.path && this.init.device === m.device;
    this.store.begin(m);
    this.live.clear();
    this.showMessage('');
    this.dom.title.textContent = `${shown(m.title)} · device ${m.device} · ${count(m.n)} events`;
    const w = this._state.window;
    const kept = w && w.path === m.path && w.device === m.device ? w : null;
    if (!same && !kept) this._state.pinned = null;
    this._state.path = m.path;
    this._state.device = m.device;
    this.resetView(kept ?? undefined);
    if (this.timeMode) this.store.requestFallback('time');
    this.request();
    if (this._state.tab === 'segments') this.store.askSegments();
    if (this._state.pinned !== null) this.store.askElement(this._state.pinned);
  }

  private resetView(keep?: { from: number; to: number }): void {
    if (!this.init) return;
    const min = this.store.domainMin(this.xAxis);
    const max = this.store.domainMax(this.xAxis);
    this._view = clampView({ min, max, from: keep?.from ?? min, to: keep?.to ?? max }, this.timeMode);
    this.rememberWindow();
    this.invalidate();
  }

  private rememberWindow(): void {
    if (this.init) this._state.window = { path: this.init.path, device: this.init.device, from: this._view.from, to: this._view.to };
    this.save();
  }

  /** Shows window `v` (remembered for this snapshot) and asks for its frame. */
  setView(v: Viewport): void {
    this._view = v;
    this.rememberWindow();
    this.invalidate();
    this.request();
  }

  /** The whole trace, y fitted to the data again. */
  fit(): void {
    this._state.yLock = null;
    this.resetView();
    this.request();
  }

  /** A fixed y ceiling (bytes) the user scales, so small blocks grow into view. */
  lockY(bytes: number): void {
    this._state.yLock = bytes;
    this.save();
    this.invalidate();
    this.request();
  }

  /** Colours the bands by another key: the primary frame, keyed the old way, is dropped. */
  setKeying(k: KeyingName): void {
    this._state.keying = k;
    this.save();
    this.store.dropPrimary();
    this.invalidate();
    this.request();
  }

  /** Events or time along x: the window starts over on that axis. */
  setXAxis(x: XAxis): void {
    this._state.x = x;
    this.save();
    this.store.dropPrimary();
    this.resetView();
    if (x === 'time' && this.init?.hasTime) this.store.requestFallback('time');
    this.request();
  }

  /** The tab shown: the segments tab asks for the instant's segments, the timeline redraws. */
  setTab(t: UiState['tab']): void {
    this._state.tab = t;
    this.save();
    if (t === 'segments') this.store.askSegments();
    else this.invalidate();
  }

  /** The editor's theme changed: re-reads the colours and redraws with them. */
  applyTheme(): void {
    this.theme = readTheme();
    this.chart.setTheme(this.theme);
    this.minimap.setTheme(this.theme);
    this.segments.setTheme(this.theme);
    this.sidePanel.recolor();
    this.invalidate();
  }

  /** Where the pointer is over the plot, or undefined once it left. */
  setHover(h: Hover | undefined): void {
    this.hover = h;
    this.invalidate();
  }

  /** Puts the keyboard cursor at data x (null: none) on a band of its column (-1: none). */
  placeCursor(x: number | null, band = -1): void {
    this._cursor = x;
    this._cursorBand = band;
    this.invalidate();
  }

  /** Pins a block: the side panel shows its stack once the host sent its details. */
  pin(id: number): void {
    this._state.pinned = id;
    this.store.askElement(id);
    this.save();
    this.invalidate();
  }

  unpin(): void {
    this._state.pinned = null;
    this.save();
    this.invalidate();
  }

  /** Asks the host to move the instant (the editors' decorations follow) to event `index`. */
  setInstant(index: number): void {
    this.store.setInstant(index);
  }

  /** Asks for the visible window at one column per device pixel, one request at a time. */
  request(): void {
    if (!this.init || this.live.active) return;
    this.store.request(() => {
      this.chart.layout();
      return {
        keying: this._state.keying,
        x: this.xAxis,
        from: this._view.from,
        to: this._view.to,
        columns: this.chart.plot.w,
        minBandBytes: Math.max(1, (2 * this.yMax()) / this.chart.plot.h),
      };
    });
  }

  /** The y ceiling: locked, else the highest figure in view (from the best frame available). */
  yMax(): number {
    if (this._state.yLock) return this._state.yLock;
    if (this.live.active) return this.live.max(this._view) * 1.08 || 1;
    return (this.store.maxInView(this._view, this.xAxis) || this.init?.maxBytes || 1) * 1.08;
  }

  private showMessage(text: string): void {
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

  draw(): void {
    const t0 = performance.now();
    if (!paint(this, { chart: this.chart, minimap: this.minimap, side: this.sidePanel, theme: this.theme })) return;
    this._lastDrawMs = performance.now() - t0;
    this.dom.canvas.dataset.drawn = String(Number(this.dom.canvas.dataset.drawn ?? 0) + 1);
  }

  /** Data x under a canvas CSS x, or undefined outside the plot. */
  dataXAt(cx: number): number | undefined {
    const px = cx * this.chart.dpr - this.chart.plot.x;
    if (px < 0 || px >= this.chart.plot.w) return undefined;
    return this._view.from + ((px + 0.5) / this.chart.plot.w) * (this._view.to - this._view.from);
  }

  /** Tooltip text for a band of the primary frame (asks for the block's details when missing). */
  describe(b: number): string {
    const p = this.primary!;
    const id = p.frame.band[b]!;
    const info = id >= 0 ? this.store.element(id) : undefined;
    if (id >= 0 && !info) this.store.askElement(id);
    return shownLines(describeBand(p, b, this.init!.keys[this._state.keying][p.frame.bandKey[b]!]!.label, info));
  }
}
