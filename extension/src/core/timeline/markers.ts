import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Action } from '../snapshot/actions';
import { rowOf, traceOf } from '../snapshot/model';
import type { Snapshot } from '../snapshot/model';
import { eventAt } from './eventAt';
import { splitMetadata } from '../analysis/modules';

export type MarkerKind = 'peak' | 'oom' | 'snapshot' | 'empty_cache' | 'optimizer' | 'iteration' | 'backward' | 'window';

/** A moment worth a tick on the timeline: `index` is the trace event it sits at. */
export interface Marker {
  kind: MarkerKind;
  index: number;
  /** The event's time (µs since the epoch), when the trace has times. */
  timeUs: number | null;
  label: string;
}

const OPTIMIZER_STEP = /^Optimizer\.step#/;
const PROFILER_STEP = /^ProfilerStep#(\d+)/;

const mib = (b: number) => `${(b / 2 ** 20).toFixed(b < 10 * 2 ** 20 ? 2 : 0)} MiB`;

/**
 * Peak and OOMs from the replay; snapshots and segment releases from the trace; optimizer steps and
 * profiler steps from external_annotations; user_metadata changes (`_set_memory_metadata`) as
 * iterations; and the start of each backward pass.
 */
export function findMarkers(s: Snapshot, a: DeviceAnalysis, phases: { start: Int32Array }): Marker[] {
  const t = traceOf(s, a.device);
  const n = t.length;
  const out: Marker[] = [];
  if (a.replay.peak.index >= 0)
    out.push({ kind: 'peak', index: a.replay.peak.index, timeUs: null, label: `peak: ${mib(a.replay.peak.requestedBytes)} requested` });
  for (const o of a.ooms)
    out.push({
      kind: 'oom',
      index: o.index,
      timeUs: null,
      label: `OOM: tried to allocate ${mib(o.requestedBytes)} with ${mib(o.deviceFreeBytes)} free on the device`,
    });

  let metadata = '';
  let raw = '';
  let burst = -1;
  let burstBytes = 0;
  let burstCalled = false;
  const closeBurst = (i: number) => {
    // Segments released right before an OOM are the allocator's retry, not the user's doing.
    if (burst >= 0 && !(i < n && t.action[i] === Action.Oom)) {
      out.push({
        kind: 'empty_cache',
        index: burst,
        timeUs: null,
        label: `${burstCalled ? 'empty_cache()' : 'segments released (empty_cache, GC or an OOM retry)'}: ${mib(burstBytes)} returned to CUDA`,
      });
    }
    burst = -1;
    burstBytes = 0;
    burstCalled = false;
  };
  for (let i = 0; i < n; i++) {
    const act = t.action[i]!;
    if (act === Action.SegmentFree || act === Action.SegmentUnmap) {
      if (burst < 0) burst = i;
      burstBytes += t.size[i]!;
      for (const f of s.stacks.get(t.stack[i]!)) if (s.frames.nameOf(f) === 'empty_cache') burstCalled = true;
      continue;
    }
    if (act !== Action.FreeRequested && act !== Action.FreeCompleted) closeBurst(i);
    if (act === Action.Snapshot) out.push({ kind: 'snapshot', index: i, timeUs: null, label: 'snapshot taken' });
    const rawMeta = s.columns.userMetadata.get(rowOf(t, i)) ?? '';
    if (rawMeta !== raw) {
      raw = rawMeta;
      // Only the workload's own string: Headroom's module scopes change at every module.
      const meta = splitMetadata(rawMeta).user;
      if (meta !== metadata) {
        if (meta) out.push({ kind: 'iteration', index: i, timeUs: null, label: `metadata: ${meta}` });
        metadata = meta;
      }
    }
  }
  closeBurst(n);

  if (s.hasTimes && n) {
    let steps = 0;
    for (const an of s.annotations) {
      if (an.device !== a.device || an.stage !== 'START' || Number.isNaN(an.timeUs)) continue;
      const i = eventAt(t.timeUs, n, an.timeUs);
      if (i >= n) continue;
      if (OPTIMIZER_STEP.test(an.name))
        out.push({
          kind: 'optimizer',
          index: i,
          timeUs: null,
          label: `optimizer step ${++steps} (${an.name.slice(an.name.indexOf('#') + 1)})`,
        });
      const p = PROFILER_STEP.exec(an.name);
      if (p) out.push({ kind: 'iteration', index: i, timeUs: null, label: `profiler step ${p[1]}` });
    }
  }
  phases.start.forEach((i, k) => {
    if (i < n) out.push({ kind: 'backward', index: i, timeUs: null, label: `backward pass ${k + 1}` });
  });
  for (const m of out)
    m.timeUs = s.hasTimes && m.index >= 0 && m.index < n && !Number.isNaN(t.timeUs[m.index]!) ? t.timeUs[m.index]! : null;
  return out.sort((x, y) => x.index - y.index);
}
