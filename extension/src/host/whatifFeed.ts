import type * as vscode from 'vscode';
import { AllocConfError } from '../core/allocator/confString';
import { predictSetting, whatifContext } from '../core/allocator/whatif';
import type { WhatifContext, WhatifReport } from '../core/allocator/whatif';
import { SUMMARY_SETTINGS, whatifView } from '../core/allocator/whatifView';
import type { DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import type { ToWebview } from '../core/protocol';
import type { Snapshot } from '../core/snapshot/model';

type Row = WhatifReport['predicted'][number] | { allocConf: string; error: string };
const GiB = 2 ** 30;
/** The editor predicts traces up to this long (each setting about a second here: bench:replay); `headroom whatif` any. */
export const EDITOR_WHATIF_EVENTS = 2_000_000;
/** Back to the event loop between settings: each prediction is one replay of the trace. */
const yieldLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * The summary page's what-if section, computed after the page opened, one setting at a time with
 * the event loop free in between, and posted to every page that shows it; the form's asks are
 * queued behind. A page that opens (or is restored) later gets the latest at once.
 */
export class WhatifFeed {
  private readonly rows: Row[] = [];
  private readonly queue: { conf: string; capGib?: number }[] = [];
  private readonly subs = new Set<(m: ToWebview) => void>();
  private ctx: WhatifContext | undefined;
  private running = false;
  private closed = false;

  constructor(
    private readonly s: Snapshot,
    private readonly a: DeviceAnalysis,
    private readonly log: vscode.LogOutputChannel,
  ) {
    if (this.tooLong) this.rows.push({ allocConf: SUMMARY_SETTINGS.join('; '), error: this.tooLong });
    else this.queue.push(...SUMMARY_SETTINGS.map((conf) => ({ conf })));
    void this.drain();
  }

  /** Why this trace is not predicted here, or undefined. */
  private get tooLong(): string | undefined {
    const n = this.a.replay.n;
    return n > EDITOR_WHATIF_EVENTS
      ? `this trace has ${n.toLocaleString('en-US')} events; the editor predicts up to ${EDITOR_WHATIF_EVENTS.toLocaleString('en-US')} (headroom whatif in a terminal predicts any)`
      : undefined;
  }

  latest(): ToWebview | undefined {
    return this.ctx
      ? {
          type: 'whatif',
          whatif: whatifView(
            this.ctx,
            this.rows,
            this.queue.map((q) => this.label(q)),
          ),
        }
      : undefined;
  }

  subscribe(post: (m: ToWebview) => void): () => void {
    this.subs.add(post);
    return () => this.subs.delete(post);
  }

  ask(conf: string, capGib?: number): void {
    const why = this.tooLong;
    if (why) {
      this.rows.push({ allocConf: this.label({ conf, ...(capGib ? { capGib } : {}) }), error: why });
      return this.publish();
    }
    this.queue.push({ conf, ...(capGib ? { capGib } : {}) });
    this.publish();
    void this.drain();
  }

  dispose(): void {
    this.closed = true;
    this.subs.clear();
  }

  private label(q: { conf: string; capGib?: number }): string {
    return q.capGib ? `${q.conf} under a ${q.capGib} GiB cap` : q.conf;
  }

  private publish(): void {
    const m = this.latest();
    if (m) for (const post of this.subs) post(m);
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await yieldLoop();
      this.ctx ??= whatifContext(this.s, this.a, undefined, !this.tooLong);
      this.publish();
      while (this.queue.length && !this.closed) {
        await yieldLoop();
        const q = this.queue[0]!;
        const ctx = q.capGib ? whatifContext(this.s, this.a, { bytes: Math.round(q.capGib * GiB), cap: true }) : this.ctx;
        let row: Row;
        try {
          row = { ...predictSetting(this.s, this.a, ctx, q.conf), allocConf: this.label(q) };
        } catch (e) {
          if (!(e instanceof AllocConfError)) throw e;
          row = { allocConf: this.label(q), error: e.message };
        }
        this.queue.shift();
        this.rows.push(row);
        this.publish();
      }
    } catch (e) {
      this.log.warn(`what-if: ${String(e)}`);
      this.queue.splice(0);
    } finally {
      this.running = false;
    }
  }
}
