import type { ElementInfo, FromTimeline, LodRequest, TimelineInit, ToTimeline } from '../../../extension/src/core/timeline/protocol';
import { fixFrame, MERGE_ALL } from './frames';
import type { Placed } from './raster';
import type { Viewport } from './viewport';

export type XAxis = 'index' | 'time';
export type Primary = Placed & { request: LodRequest; seq: number };
type FrameMsg = Extract<ToTimeline, { type: 'frame' }>;
type InstantMsg = Extract<ToTimeline, { type: 'instant' }>;
/** The store as a draw reads it (no changes). */
export type FrameData = Pick<FrameStore, 'init' | 'primary' | 'framesInView' | 'fallbackFor' | 'element'>;

/** What the host sent for the open snapshot (frames, blocks, the instant), and the page's asks for more. */
export class FrameStore {
  private snapshot: TimelineInit | undefined;
  private best: Primary | undefined;
  /** Whole-trace frames per x axis (index: the init's overview), drawn where the primary frame does not reach. */
  private readonly fallback = new Map<XAxis, Placed>();
  private readonly elements = new Map<number, ElementInfo>();
  private readonly asked = new Set<number>();
  private seq = 0;
  private inflight: { seq: number; at: number } | undefined;

  constructor(private readonly post: (m: FromTimeline) => void) {}

  get init(): Readonly<TimelineInit> | undefined {
    return this.snapshot;
  }

  /** The frame of the last window asked for (the newest answer wins). */
  get primary(): Primary | undefined {
    return this.best;
  }

  isCurrent(session: number): boolean {
    return this.snapshot?.session === session;
  }

  /** A new snapshot: everything of the one before is dropped. */
  begin(m: TimelineInit): void {
    this.snapshot = m;
    this.best = undefined;
    this.fallback.clear();
    this.fallback.set('index', { frame: fixFrame(m.overview), from: 0, to: m.n });
    this.elements.clear();
    this.asked.clear();
  }

  /** No snapshot shown any more. */
  end(): void {
    this.snapshot = undefined;
  }

  /** Forgets the primary frame (its keying or axis changed): the fallback shows until the next one comes. */
  dropPrimary(): void {
    this.best = undefined;
  }

  /** Takes a frame of this snapshot (false: another snapshot's, ignored). */
  accept(m: FrameMsg): boolean {
    if (!this.snapshot || m.session !== this.snapshot.session) return false;
    if (this.inflight?.seq === m.seq) this.inflight = undefined;
    const r = m.request;
    if (r.from === this.domainMin(r.x) && r.to === this.domainMax(r.x) && r.minBandBytes >= MERGE_ALL) {
      this.fallback.set(r.x, { frame: fixFrame(m.frame), from: r.from, to: r.to });
    } else if (!this.best || m.seq > this.best.seq) {
      this.best = { frame: fixFrame(m.frame), from: r.from, to: r.to, request: r, seq: m.seq };
    }
    return true;
  }

  addElement(info: ElementInfo): void {
    this.elements.set(info.id, info);
  }

  element(id: number): ElementInfo | undefined {
    return this.elements.get(id);
  }

  moveInstant(m: InstantMsg): void {
    if (this.snapshot && m.session === this.snapshot.session) this.snapshot.instant = { index: m.index, label: m.label, timeUs: m.timeUs };
  }

  domainMax(x: XAxis): number {
    const m = this.snapshot!;
    return x === 'time' && m.timeRange ? m.timeRange[1] + 1 : Math.max(1, m.n);
  }

  domainMin(x: XAxis): number {
    const m = this.snapshot!;
    return x === 'time' && m.timeRange ? m.timeRange[0] : 0;
  }

  fallbackFor(x: XAxis): Placed | undefined {
    return this.fallback.get(x);
  }

  /** The frames to draw on axis x: the primary first, then the whole-trace one. */
  framesInView(x: XAxis): Placed[] {
    const out: Placed[] = [];
    if (this.best && this.best.request.x === x) out.push(this.best);
    const fb = this.fallback.get(x);
    if (fb) out.push(fb);
    return out;
  }

  /** The highest figure in the window, from the best frame that has one (0: none). */
  maxInView(view: Viewport, x: XAxis): number {
    let max = 0;
    const frames = this.framesInView(x);
    for (const p of frames.length ? frames : [...this.fallback.values()]) {
      const f = p.frame;
      for (let c = 0; c < f.columns; c++) {
        const x0 = p.from + (c / f.columns) * (p.to - p.from);
        const x1 = p.from + ((c + 1) / f.columns) * (p.to - p.from);
        if (x1 < view.from || x0 > view.to) continue;
        max = Math.max(max, f.reserved[c]!, f.requested[c]!);
      }
      if (max > 0) break;
    }
    return max;
  }

  /** Asks for the window `build` describes, one request at a time, unless the primary frame already is it. */
  request(build: () => LodRequest): void {
    if (!this.snapshot) return;
    if (this.inflight && performance.now() - this.inflight.at < 3000) return;
    const want = build();
    const have = this.best?.request;
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
    this.post({ type: 'view', session: this.snapshot.session, seq: this.seq, request: want });
  }

  requestFallback(x: XAxis): void {
    if (!this.snapshot || this.fallback.has(x)) return;
    this.post({
      type: 'view',
      session: this.snapshot.session,
      seq: ++this.seq,
      request: { keying: 'category', x, from: this.domainMin(x), to: this.domainMax(x), columns: 1024, minBandBytes: MERGE_ALL },
    });
  }

  askElement(id: number): void {
    if (!this.snapshot || this.elements.has(id) || this.asked.has(id)) return;
    this.asked.add(id);
    this.post({ type: 'element', session: this.snapshot.session, id });
  }

  askSegments(): void {
    if (this.snapshot) this.post({ type: 'segments', session: this.snapshot.session, index: this.snapshot.instant.index });
  }

  /** Asks the host to move the instant (the editors' decorations follow) to event `index`. */
  setInstant(index: number): void {
    if (this.snapshot) this.post({ type: 'setInstant', session: this.snapshot.session, index });
  }
}
