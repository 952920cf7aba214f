import type * as vscode from 'vscode';
import type { Limit } from '../core/allocator/limit';
import { whatifContext } from '../core/allocator/whatif';
import type { DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import type { ScaleView, ToWebview } from '../core/protocol';
import { maxBatchSearch } from '../core/scale/maxBatch';
import { predictScale } from '../core/scale/predict';
import { scaleRoles } from '../core/scale/roles';
import type { Roles } from '../core/scale/roles';
import type { Snapshot } from '../core/snapshot/model';
import { EDITOR_WHATIF_EVENTS } from './whatifFeed';

const yieldLoop = () => new Promise<void>((r) => setImmediate(r));
/** The first answer the section shows: twice the batch, the question most asked. */
const FIRST_SCALE = 2;

/**
 * The summary page's batch section: the run predicted at the batch the slider asks, computed with
 * the event loop free before each, only the latest ask (a dragged slider asks many times); the
 * largest batch that fits on request (a search of many predictions). Posted to every page showing it.
 */
export class ScaleFeed {
  private readonly subs = new Set<(m: ToWebview) => void>();
  private view: ScaleView;
  private roles: Roles | undefined;
  private limit: Limit | null | undefined;
  private wanted: number | undefined = FIRST_SCALE;
  private wantLargest = false;
  private running = false;
  private closed = false;

  constructor(
    private readonly s: Snapshot,
    private readonly a: DeviceAnalysis,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const n = a.replay.n;
    const recorded = { requestedPeak: a.replay.peak.requestedBytes, reservedPeak: a.replay.reservedPeak.bytes, ooms: a.ooms.length };
    this.view = {
      scale: null,
      requestedPeak: recorded.requestedPeak,
      reservedPeak: recorded.reservedPeak,
      ooms: 0,
      recorded,
      limitBytes: null,
      confidence: '',
      assumptions: [],
    };
    if (n > EDITOR_WHATIF_EVENTS)
      this.view.error = `this trace has ${n.toLocaleString('en-US')} events; the editor predicts up to ${EDITOR_WHATIF_EVENTS.toLocaleString('en-US')} (headroom whatif --batch-scale in a terminal predicts any)`;
    else void this.drain();
  }

  latest(): ToWebview {
    return { type: 'scale', scale: this.view };
  }

  subscribe(post: (m: ToWebview) => void): () => void {
    this.subs.add(post);
    return () => this.subs.delete(post);
  }

  ask(scale: number): void {
    this.wanted = scale;
    void this.drain();
  }

  largest(): void {
    this.wantLargest = true;
    void this.drain();
  }

  dispose(): void {
    this.closed = true;
    this.subs.clear();
  }

  private publish(): void {
    for (const post of this.subs) post(this.latest());
  }

  private async drain(): Promise<void> {
    if (this.running || this.view.error) return;
    this.running = true;
    try {
      while (!this.closed && (this.wanted !== undefined || this.wantLargest)) {
        await yieldLoop();
        // The limit the recorded OOM shows (read once per OOM, shared with the what-if section), else none.
        this.limit ??= whatifContext(this.s, this.a).limit ?? null;
        const limit = this.limit ?? undefined;
        this.roles ??= scaleRoles(this.s, this.a);
        if (this.wanted !== undefined) {
          const scale = this.wanted;
          this.wanted = undefined;
          const p = predictScale(this.s, this.a, this.roles, scale, limit ? { limit } : {});
          this.view = {
            ...this.view,
            scale,
            requestedPeak: p.requestedPeak,
            reservedPeak: p.reservedPeak,
            ooms: p.ooms,
            limitBytes: limit?.bytes ?? null,
            confidence: p.confidence,
            assumptions: p.assumptions,
          };
        } else {
          this.wantLargest = false;
          // No limit known (the run had no OOM): the page offers no such button.
          if (limit) {
            const search = maxBatchSearch(this.s, this.a, this.roles, limit, 0.05);
            let r = search.next();
            for (; !r.done && !this.closed; r = search.next()) await yieldLoop();
            if (r.done) this.view = { ...this.view, largest: r.value.best };
          }
        }
        this.publish();
      }
    } catch (e) {
      this.log.warn(`batch prediction: ${String(e)}`);
    } finally {
      this.running = false;
    }
  }
}
