import type * as vscode from 'vscode';
import { AllocConfError } from '../core/allocator/confString';
import { predictSetting, whatifContext } from '../core/allocator/whatif';
import type { WhatifContext, WhatifReport } from '../core/allocator/whatif';
import { SUMMARY_SETTINGS, whatifView } from '../core/allocator/whatifView';
import type { DeviceAnalysis } from '../core/analysis/analyze';
import type { ToWebview } from '../core/protocol';
import type { Snapshot } from '../core/snapshot/model';

type Row = WhatifReport['predicted'][number] | { allocConf: string; error: string };
const GiB = 2 ** 30;
/** Back to the event loop between settings: each prediction is one replay of the trace. */
const yieldLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * The summary page's what-if section, computed after the page opened, one setting at a time with
 * the event loop free in between, and posted to every page that shows it; the form's asks are
 * queued behind. A page that opens (or is restored) later gets the latest at once.
 */
export class WhatifFeed {
  private readonly rows: Row[] = [];
  private readonly queue: { conf: string; capGib?: number }[] = SUMMARY_SETTINGS.map((conf) => ({ conf }));
  private readonly subs = new Set<(m: ToWebview) => void>();
  private ctx: WhatifContext | undefined;
  private running = false;
  private closed = false;

  constructor(private readonly s: Snapshot, private readonly a: DeviceAnalysis, private readonly log: vscode.LogOutputChannel) {
    void this.drain();
  }

  latest(): ToWebview | undefined {
    return this.ctx ? { type: 'whatif', whatif: whatifView(this.ctx, this.rows, this.queue.map((q) => this.label(q))) } : undefined;
  }

  subscribe(post: (m: ToWebview) => void): () => void {
    this.subs.add(post);
    return () => this.subs.delete(post);
  }

  ask(conf: string, capGib?: number): void {
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
      this.ctx ??= whatifContext(this.s, this.a);
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
