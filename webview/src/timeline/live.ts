import type { Marker, ToTimeline } from '../../../extension/src/core/timeline/protocol';
import type { Series } from './chart';
import { clampView } from './viewport';
import type { Viewport } from './viewport';

type LiveMsg = Extract<ToTimeline, { type: 'live' }>;

/** A running job's samples as they come (at most 4 batches a second from the host). */
export class LiveFeed {
  active = false;
  running = false;
  title = '';
  t: number[] = [];
  allocated: number[] = [];
  reserved: number[] = [];
  requested: number[] = [];
  device: number[] = [];
  /** Device memory this process holds (the driver's figure): above reserved by the CUDA context and libraries. */
  process: number[] = [];
  markers: Marker[] = [];

  get t0(): number {
    return this.t[0] ?? 0;
  }

  get t1(): number {
    return this.t.at(-1) ?? 0;
  }

  clear(): void {
    this.active = false;
    this.t = [];
    this.allocated = [];
    this.reserved = [];
    this.requested = [];
    this.device = [];
    this.process = [];
    this.markers = [];
  }

  add(m: LiveMsg): void {
    if (m.reset) this.clear();
    this.active = true;
    this.running = m.running;
    this.title = m.title;
    for (const s of m.samples) {
      this.t.push(s.t);
      this.allocated.push(s.allocated);
      this.reserved.push(s.reserved);
      this.requested.push(s.requested);
      this.device.push(s.deviceUsed ?? NaN);
      this.process.push(s.processUsed ?? NaN);
    }
    for (const k of m.markers)
      this.markers.push({
        kind: k.kind === 'exit' ? 'snapshot' : k.kind === 'backward' ? 'backward' : k.kind,
        index: -1,
        timeUs: k.t,
        label: k.label,
      });
  }

  series(): Series[] {
    const out: Series[] = [
      { name: 'reserved', x: this.t, y: this.reserved },
      { name: 'allocated', x: this.t, y: this.allocated },
      { name: 'requested', x: this.t, y: this.requested },
    ];
    if (this.device.some((v) => !Number.isNaN(v))) out.push({ name: 'device', x: this.t, y: this.device });
    if (this.process.some((v) => !Number.isNaN(v))) out.push({ name: 'process', x: this.t, y: this.process });
    return out;
  }

  max(v: Viewport): number {
    let m = 0;
    for (let i = 0; i < this.t.length; i++) {
      if (this.t[i]! < v.from || this.t[i]! > v.to) continue;
      m = Math.max(
        m,
        this.reserved[i]!,
        this.allocated[i]!,
        Number.isNaN(this.device[i]!) ? 0 : this.device[i]!,
        Number.isNaN(this.process[i]!) ? 0 : this.process[i]!,
      );
    }
    return m;
  }

  /** The whole run so far, from its first sample to just past its last. */
  wholeRun(): Viewport {
    return { min: this.t0, max: this.t1 + 1, from: this.t0, to: this.t1 + 1 };
  }

  /** The window after new samples: it keeps its width and slides with the newest, unless the user looked back. */
  follow(v: Viewport): Viewport {
    const t1 = this.t1 + 1;
    const atEdge = v.to >= v.max - (v.to - v.from) * 0.02;
    const grown = { ...v, min: this.t0, max: Math.max(t1, this.t0 + 1) };
    return atEdge ? clampView({ ...grown, from: v.from === v.min ? grown.min : v.from + (grown.max - v.max), to: grown.max }, true) : grown;
  }
}
