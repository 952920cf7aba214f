import type { AgentEvent, Sample } from './protocol';
import type { AgentStream } from './server';
import { liveStatus } from './status';
import type { LiveStatus } from './status';

/** Samples kept per stream for the live timeline: a day at 10 samples/s fits. */
export const HISTORY_CAP = 1_000_000;
/** Agent events worth a marker on the live timeline. */
const LIVE_EVENTS = new Set(['snapshot', 'oom', 'backward', 'exit', 'window_open', 'window_close']);

export interface LatestSample {
  rank: number | null;
  pid: number;
  sample: Sample;
}

/** What a run's agents have said so far: the figures every front end shows, kept in one place. */
export class LiveRecord {
  /** Every agent's pid so far (the run's own processes on the GPU). */
  readonly pids = new Set<number>();
  /** Latest sample per `${stream}/${device}`; a stream's keys leave when it disconnects. */
  readonly latest = new Map<string, LatestSample>();
  /** Every sample per key, oldest first; at the cap the oldest half goes. */
  readonly history = new Map<string, Sample[]>();
  /** Events worth a marker on the live timeline, up to the cap. */
  readonly events: AgentEvent[] = [];
  /** Recording windows so far (window events), and whether one is open. */
  windows = { count: 0, open: false };
  /** Highest max_allocated any stream reported (streams leave `latest`, the peak stays). */
  peak = 0;

  /** cap: samples kept per stream and events kept; 0 keeps none (a front end without a timeline). */
  constructor(private readonly cap = HISTORY_CAP) {}

  status(): LiveStatus | undefined {
    return liveStatus(this.latest.values());
  }

  protected joined(s: AgentStream): void {
    this.pids.add(s.hello.pid);
  }

  protected left(s: AgentStream): void {
    for (const k of this.latest.keys()) if (k.startsWith(`${s.id}/`)) this.latest.delete(k);
  }

  protected sampled(s: AgentStream, m: Sample): void {
    const key = `${s.id}/${m.device}`;
    this.latest.set(key, { rank: s.hello.rank, pid: s.hello.pid, sample: m });
    if (this.cap > 0) {
      const h = this.history.get(key) ?? [];
      if (h.length >= this.cap) h.splice(0, h.length >> 1); // keep the newest half
      h.push(m);
      this.history.set(key, h);
    }
    this.peak = Math.max(this.peak, m.max_allocated);
  }

  protected noted(m: AgentEvent): void {
    if (LIVE_EVENTS.has(m.event) && this.events.length < this.cap) this.events.push(m);
    if (m.event === 'window_open') this.windows = { count: this.windows.count + 1, open: true };
    else if (m.event === 'window_close') this.windows = { ...this.windows, open: false };
  }
}
