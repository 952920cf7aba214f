import { Action } from '../snapshot/actions';
import type { DeviceTrace } from '../snapshot/model';

export interface OomEvent {
  device: number;
  /** Trace index of the `oom` entry. */
  index: number;
  timeUs: number | null;
  /** The request, rounded to 512 B (not the 2 MiB-rounded "Tried to allocate" figure). */
  requestedBytes: number;
  /** cudaMemGetInfo's free bytes at the OOM. */
  deviceFreeBytes: number;
  stream: number;
  stack: number;
}

/** Every `oom` entry of a device trace (the allocator records it before raising). */
export function oomEvents(t: DeviceTrace): OomEvent[] {
  const out: OomEvent[] = [];
  for (let i = 0; i < t.length; i++) {
    if (t.action[i] !== Action.Oom) continue;
    const time = t.timeUs[i]!;
    out.push({
      device: t.device,
      index: i,
      timeUs: Number.isNaN(time) ? null : time,
      requestedBytes: t.size[i]!,
      deviceFreeBytes: t.addr[i]!,
      stream: t.stream[i]!,
      stack: t.stack[i]!,
    });
  }
  return out;
}
