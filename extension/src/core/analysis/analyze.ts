import type { Segment, Snapshot } from '../snapshot/model';
import { traceOf } from '../snapshot/model';
import { classifyBackward } from './backward';
import type { CallWindow } from './backward';
import type { At, DeviceAnalysis } from './deviceAnalysis';
import { allocatedAfter, exactAllocated } from './exactAllocated';
import type { ExactAllocated } from './exactAllocated';
import { fragmentation } from './fragmentation';
import { oomEvents } from './ooms';
import { allocatedAt, replay } from './replay';
import type { Instant, Replay } from './replay';
import { roundingFrom } from './rounding';
import type { Rounding } from './rounding';
import { FrameClassifier } from './userCode';
import type { UserCodeRule } from './userCode';

/** @param calls backward() windows the agent recorded in the run folder, when the snapshot came from a run. */
export function analyzeDevice(s: Snapshot, device: number, rule?: UserCodeRule, calls?: readonly CallWindow[]): DeviceAnalysis {
  const t = traceOf(s, device);
  const shared = perSnapshot(s);
  const segments = shared.segments.get(device) ?? [];
  const r = replay(t, segments, shared.rounding);
  // Without a rule, the devices share one classifier: its cache is sized by the frames, not the device.
  const classifier = rule ? new FrameClassifier(s.frames, rule) : (shared.classifier ??= new FrameClassifier(s.frames));
  return withAllocated(s, r, {
    device,
    replay: r,
    backward: classifyBackward(s, t, r.elements, classifier, calls),
    classifier,
    fragmentation: fragmentation(device, segments),
    ooms: oomEvents(t),
  });
}

/**
 * The allocator replay runs when `allocated` (or the start's, peak's or end's allocatedBytes) is
 * first read, once: the editor's decorations need only requested bytes, so they reach the screen
 * before it (bench:ui). Every reader sees the same figures: the instants read through it.
 */
function withAllocated(s: Snapshot, r: Replay, rest: Omit<DeviceAnalysis, 'allocated'>): DeviceAnalysis {
  let allocated: DeviceAnalysis['allocated'] | undefined;
  const get = () => (allocated ??= exactAllocated(s, rest.device));
  const through = (x: { allocatedBytes: number }, exact: (a: ExactAllocated) => number) => {
    const estimate = x.allocatedBytes;
    Object.defineProperty(x, 'allocatedBytes', {
      get: () => {
        const a = get();
        return a.exact ? exact(a) : estimate;
      },
      enumerable: true,
    });
  };
  for (const x of new Set([r.peak, r.end])) through(x, (a) => allocatedAfter(a, x.index));
  through(r.start, (a) => a.start);
  return {
    ...rest,
    get allocated() {
      return get();
    },
  };
}

/** What every device of a snapshot shares, made once: its segments by device, rounding and default classifier. */
interface PerSnapshot {
  segments: Map<number, Segment[]>;
  rounding: Rounding;
  classifier?: FrameClassifier;
}
const perSnapshots = new WeakMap<Snapshot, PerSnapshot>();

function perSnapshot(s: Snapshot): PerSnapshot {
  let p = perSnapshots.get(s);
  if (p) return p;
  const segments = new Map<number, Segment[]>();
  for (const g of s.segments) {
    const list = segments.get(g.device);
    if (list) list.push(g);
    else segments.set(g.device, [g]);
  }
  perSnapshots.set(s, (p = { segments, rounding: roundingFrom(s.allocatorSettings) }));
  return p;
}

/** The default device: the one with the longest trace, else the first with segments. */
export function defaultDevice(s: Snapshot): number | undefined {
  let best: number | undefined;
  let len = -1;
  for (const d of s.devices) {
    const n = traceOf(s, d).length;
    if (n > len) {
      best = d;
      len = n;
    }
  }
  return best;
}

export function resolveAt(a: DeviceAnalysis, at: At): Instant {
  const r = a.replay;
  if (at === 'peak') return r.peak;
  if (at === 'end') return r.end;
  if (!Number.isInteger(at) || at < -1 || at >= r.n) {
    throw new RangeError(`trace index ${at} is out of range: device ${a.device} has ${r.n} events (0–${r.n - 1})`);
  }
  return {
    index: at,
    timeUs: at >= 0 && !Number.isNaN(r.timeUs[at]!) ? r.timeUs[at]! : null,
    requestedBytes: at < 0 ? r.start.requestedBytes : r.requested[at]!,
    allocatedBytes: a.allocated.exact ? allocatedAfter(a.allocated, at) : allocatedAt(r.elements, at),
  };
}
