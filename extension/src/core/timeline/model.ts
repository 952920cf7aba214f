import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { BUCKET_LABELS } from '../analysis/attribution';
import type { BucketKind } from '../analysis/attribution';
import { NOT_BACKWARD } from '../analysis/backward';
import { estimateSeries, Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';
import { traceOf } from '../snapshot/model';
import { backwardPhases } from './categories';
import { blockKinds } from '../kinds/blockKinds';
import { Kind, KIND_LABELS } from '../kinds/kindLabels';
import { findMarkers } from './markers';
import { moduleKeys } from './moduleKeys';
import type { KeyInfo, Keying, TimelineModel } from './modelTypes';

const BUCKETS: BucketKind[] = ['before_recording', 'backward', 'library', 'no_stack'];
// Fixed costs at the bottom (weights, library workspaces), then the optimizer and gradients, a leak
// above them (it grows), then each iteration's memory.
const CATEGORY_ORDER = [
  Kind.BeforeRecording,
  Kind.Parameter,
  Kind.Workspace,
  Kind.Optimizer,
  Kind.Gradient,
  Kind.Leaked,
  Kind.Activation,
  Kind.Temporary,
  Kind.Other,
];
/** Checkpoint values kept per keying at most (8 bytes + 4 bytes each). */
const CHECKPOINT_BUDGET = 2_000_000;

/** Line keys, as attribution assigns self bytes: the innermost user frame, else a bucket. */
function lineKeys(s: Snapshot, a: DeviceAnalysis): { key: Int32Array; keys: KeyInfo[] } {
  const e = a.replay.elements;
  const keys: KeyInfo[] = BUCKETS.map((b) => ({ label: BUCKET_LABELS[b] }));
  const byLine = new Map<string, number>();
  const byStack = new Map<number, number>();
  const key = new Int32Array(e.count);
  for (let k = 0; k < e.count; k++) {
    const origin = e.origin[k]!;
    let id = -1;
    let python = false;
    if (origin !== Origin.UnmatchedFree) {
      const st = e.stack[k]!;
      const hit = byStack.get(st);
      if (hit !== undefined) id = hit;
      else {
        for (const f of s.stacks.get(st)) {
          const kind = a.classifier.kind(f);
          if (kind === FrameKind.Cpp) continue;
          python = true;
          if (kind !== FrameKind.User) continue;
          const file = s.frames.fileOf(f);
          const line = s.frames.lineOf(f);
          const name = `${line}\u0000${file}`;
          id = byLine.get(name) ?? -1;
          if (id < 0) {
            id = keys.length;
            keys.push({ label: `${file.split('/').pop()}:${line} ${s.frames.nameOf(f)}`, file, line });
            byLine.set(name, id);
          }
          break;
        }
        // -2: no user frame but Python frames; -3: no Python frames at all.
        byStack.set(st, id >= 0 ? id : python ? -2 : -3);
        if (id < 0) id = python ? -2 : -3;
      }
    }
    if (id >= 0) key[k] = id;
    else if (origin !== Origin.Trace) key[k] = 0;
    else if (a.backward.site[k] !== NOT_BACKWARD) key[k] = 1;
    else key[k] = id === -2 ? 2 : 3;
  }
  return { key, keys };
}

function keying(
  key: Int32Array,
  keys: KeyInfo[],
  order: Int32Array,
  m: Pick<TimelineModel, 'n' | 'evOff' | 'evItem' | 'startLive'>,
  size: Float64Array,
): Keying {
  const K = keys.length;
  const every = Math.max(1024, Math.ceil(m.n / Math.max(1, Math.floor(CHECKPOINT_BUDGET / K))));
  const cps = Math.floor(m.n / every) + 1;
  const bytes = new Float64Array(cps * K);
  const counts = new Int32Array(cps * K);
  const b = new Float64Array(K);
  const c = new Int32Array(K);
  for (const k of m.startLive) {
    b[key[k]!]! += size[k]!;
    c[key[k]!]!++;
  }
  for (let i = 0, j = 0; i <= m.n; i++) {
    if (i % every === 0 && j < cps) {
      bytes.set(b, j * K);
      counts.set(c, j * K);
      j++;
    }
    if (i === m.n) break;
    for (let p = m.evOff[i]!; p < m.evOff[i + 1]!; p++) {
      const it = m.evItem[p]!;
      const k = Math.abs(it) - 1;
      const g = key[k]!;
      if (it > 0) {
        b[g]! += size[k]!;
        c[g]!++;
      } else {
        b[g]! -= size[k]!;
        c[g]!--;
      }
    }
  }
  return { key, keys, order, every, bytes, counts };
}

export function buildTimeline(s: Snapshot, a: DeviceAnalysis): TimelineModel {
  const r = a.replay;
  const e = r.elements;
  const n = r.n;
  // CSR of element changes per event.
  const evOff = new Int32Array(n + 1);
  let before = 0;
  for (let k = 0; k < e.count; k++) {
    if (e.alloc[k]! >= 0) evOff[e.alloc[k]! + 1]!++;
    else before++;
    if (e.free[k]! < n) evOff[e.free[k]! + 1]!++;
  }
  for (let i = 0; i < n; i++) evOff[i + 1]! += evOff[i]!;
  const evItem = new Int32Array(evOff[n]!);
  const fill = evOff.slice(0, n);
  const startLive = new Int32Array(before);
  for (let k = 0, z = 0; k < e.count; k++) {
    if (e.alloc[k]! >= 0) evItem[fill[e.alloc[k]!]!++] = k + 1;
    else startLive[z++] = k;
    if (e.free[k]! < n) evItem[fill[e.free[k]!]!++] = -(k + 1);
  }
  const base = { n, evOff, evItem, startLive };

  const phases = backwardPhases(s, a);
  // The kinds every surface shows (leaked, library workspaces…), not the lifetime roles alone.
  const category = blockKinds(s, a);
  const lines = lineKeys(s, a);
  // Lines stack in the order they first allocate: long-lived memory (weights) settles at the bottom.
  const first = new Float64Array(lines.keys.length).fill(Infinity);
  for (let k = 0; k < e.count; k++) first[lines.key[k]!] = Math.min(first[lines.key[k]!]!, e.alloc[k]!);
  const lineOrder = Int32Array.from(lines.keys.map((_, i) => i).sort((x, y) => first[x]! - first[y]! || x - y));
  const catKey = Int32Array.from(category);
  const catKeys = KIND_LABELS.map((label) => ({ label }));
  const mods = moduleKeys(s, a);

  const t = traceOf(s, a.device);
  let hasTime = n > 0;
  for (let i = 0; i < n && hasTime; i++) if (Number.isNaN(t.timeUs[i]!)) hasTime = false;
  return {
    device: a.device,
    analysis: a,
    ...base,
    category,
    keyings: {
      line: keying(lines.key, lines.keys, lineOrder, base, e.size),
      category: keying(catKey, catKeys, Int32Array.from(CATEGORY_ORDER), base, e.size),
      module: keying(mods.key, mods.keys, mods.order, base, e.size),
    },
    allocated: a.allocated.exact ? a.allocated.series : estimateSeries(e, n).allocated,
    markers: findMarkers(s, a, phases),
    hasTime,
  };
}
