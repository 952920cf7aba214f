import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';
import { KIND_RULES } from '../kinds/blockKinds';
import { KIND_LABELS } from '../kinds/kindLabels';
import { lod } from './lod';
import type { LodRequest } from './lod';
import { buildTimeline } from './model';
import type { TimelineModel } from './modelTypes';
import { MERGE_ALL } from './protocol';
import type { ElementInfo, TimelineInit, ToTimeline } from './protocol';
import { allocatorStateAt, poolSummaries } from './segments';

export interface SessionSource {
  snapshot: Snapshot;
  analysis: DeviceAnalysis;
  title: string;
  path: string;
  instant: { index: number; label: string };
}

const OVERVIEW_COLUMNS = 1024;
const ORIGINS = ['trace', 'unmatched free', 'ghost'] as const;

/**
 * The timeline's answers for one snapshot and device: the host side of the channel, with no
 * `vscode` in it (the benchmark drives a page with it too).
 */
export class TimelineSession {
  readonly model: TimelineModel;

  constructor(
    readonly id: number,
    private readonly src: SessionSource,
  ) {
    this.model = buildTimeline(src.snapshot, src.analysis);
  }

  init(): TimelineInit {
    const { model: m, src } = this;
    const r = src.analysis.replay;
    return {
      type: 'init',
      session: this.id,
      title: src.title,
      path: src.path,
      device: m.device,
      devices: src.snapshot.devices,
      n: m.n,
      hasTime: m.hasTime,
      timeRange: m.hasTime ? [r.timeUs[0]!, r.timeUs[m.n - 1]!] : null,
      keys: { line: m.keyings.line.keys, category: m.keyings.category.keys, module: m.keyings.module.keys },
      categoryRules: KIND_RULES,
      markers: m.markers,
      peak: { index: r.peak.index, bytes: r.peak.requestedBytes },
      instant: { ...src.instant, timeUs: this.timeOf(src.instant.index) },
      overview: lod(m, {
        keying: 'category',
        x: 'index',
        from: 0,
        to: Math.max(1, m.n),
        columns: Math.max(1, Math.min(OVERVIEW_COLUMNS, m.n)),
        minBandBytes: MERGE_ALL,
      }),
      maxBytes: Math.max(r.reservedPeak.bytes, r.peak.requestedBytes, r.reservedEnd, 1),
    };
  }

  frame(seq: number, request: LodRequest): ToTimeline {
    return { type: 'frame', session: this.id, seq, request, frame: lod(this.model, request) };
  }

  element(id: number): ToTimeline | undefined {
    const { snapshot: s, analysis: a } = this.src;
    const e = a.replay.elements;
    if (id < 0 || id >= e.count) return undefined;
    const time = (i: number) => (i >= 0 && i < a.replay.n && !Number.isNaN(a.replay.timeUs[i]!) ? a.replay.timeUs[i]! : null);
    const info: ElementInfo = {
      id,
      size: e.size[id]!,
      rounded: e.rounded[id]!,
      address: e.addr[id]!,
      stream: e.stream[id]!,
      alloc: e.alloc[id]!,
      free: e.free[id]!,
      aliveAtEnd: e.free[id]! >= a.replay.n,
      allocTimeUs: time(e.alloc[id]!),
      freeTimeUs: time(e.free[id]!),
      origin: ORIGINS[e.origin[id]! as Origin]!,
      category: KIND_LABELS[this.model.category[id]!]!,
      key: this.model.keyings.line.keys[this.model.keyings.line.key[id]!]!.label,
      module: this.model.keyings.module.key[id]! > 0 ? this.model.keyings.module.keys[this.model.keyings.module.key[id]!]!.label : null,
      stack: [...s.stacks.get(e.stack[id]!)].map((f) => ({
        file: s.frames.fileOf(f),
        line: s.frames.lineOf(f),
        name: s.frames.nameOf(f),
        user: a.classifier.kind(f) === FrameKind.User,
      })),
    };
    return { type: 'element', session: this.id, info };
  }

  segments(index: number): ToTimeline {
    const st = allocatorStateAt(this.src.snapshot, this.src.analysis, Math.min(index, this.model.n - 1));
    return { type: 'segments', session: this.id, index: st.index, segments: st.segments, pools: poolSummaries(st), orphans: st.orphans };
  }

  instant(index: number, label: string): ToTimeline {
    this.src.instant = { index, label };
    return { type: 'instant', session: this.id, index, label, timeUs: this.timeOf(index) };
  }

  private timeOf(i: number): number | null {
    const t = this.src.analysis.replay.timeUs;
    return this.model.hasTime && i >= 0 && i < this.model.n ? t[i]! : null;
  }
}
