import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { OomEvent } from '../analysis/ooms';
import type { Snapshot } from '../snapshot/model';
import { CATEGORY_LABELS } from '../timeline/categories';

// What the OOM needed and who held it: the batch's share of the need, and the activations' holder.

/** A user line whose calls into torch.nn modules made activations live at the OOM. */
export interface ActivationHolder {
  file: string;
  line: number;
  bytes: number;
  blocks: number;
  largest: number;
}

/**
 * Need ≈ fixed + scaled × (batch / current batch): what the failing iteration created (its inputs,
 * its forward so far, the request) scales with the batch; what was there before it (parameters,
 * optimizer state, caches) does not. The need is seen only up to the OOM, so it is a lower bound
 * and `fraction` an upper bound on the batch that fits.
 */
export interface BatchEstimate {
  fixedBytes: number;
  scaledBytes: number;
  /** What PyTorch could have had: live + reserved-unallocated + free on the device. */
  availableBytes: number;
  /** The largest share of the current batch whose need up to this point fits. */
  fraction: number;
}

const FIXED = new Set(['parameters', 'gradients', 'optimizer state']);
const MODULE_CALL = /torch\/nn\/modules\/module\.py$/;

/** Where the failing iteration began: after the last backward pass that ended before the OOM (else the trace's start). */
function iterationStart(ends: Int32Array, oom: OomEvent): number {
  let begin = -1;
  for (const i of ends) if (i <= oom.index && i > begin) begin = i;
  return begin;
}

/**
 * Activations live at the OOM (saved for a backward, or made by the failing iteration's forward),
 * made inside a torch.nn module call, grouped by the user line that made the call: the most.
 */
export function activationHolder(
  s: Snapshot,
  a: DeviceAnalysis,
  live: Int32Array,
  cats: Uint8Array,
  ends: Int32Array,
  oom: OomEvent,
): ActivationHolder | undefined {
  const e = a.replay.elements;
  const begin = iterationStart(ends, oom);
  const by = new Map<number, ActivationHolder>();
  for (const k of live) {
    const cat = CATEGORY_LABELS[cats[k]!]!;
    if (cat !== 'activations' && (FIXED.has(cat) || e.alloc[k]! < Math.max(0, begin))) continue;
    const frames = s.stacks.get(e.stack[k]!);
    if (!frames.some((f) => MODULE_CALL.test(s.frames.fileOf(f)))) continue;
    const f = a.classifier.firstUser(frames);
    if (f < 0) continue;
    const h = by.get(f) ?? { file: s.frames.fileOf(f), line: s.frames.lineOf(f), bytes: 0, blocks: 0, largest: 0 };
    h.bytes += e.size[k]!;
    h.blocks++;
    h.largest = Math.max(h.largest, e.size[k]!);
    by.set(f, h);
  }
  return [...by.values()].sort((x, y) => y.bytes - x.bytes)[0];
}

/** Split the need at the OOM into what the failing iteration made (scales with the batch) and the rest. */
export function batchEstimate(
  a: DeviceAnalysis,
  live: Int32Array,
  cats: Uint8Array,
  ends: Int32Array,
  oom: OomEvent,
  unallocated: number,
): BatchEstimate {
  const e = a.replay.elements;
  const begin = iterationStart(ends, oom);
  let fixed = 0;
  let scaled = oom.requestedBytes;
  for (const k of live) {
    const mine = e.alloc[k]! >= begin && e.alloc[k]! >= 0 && !FIXED.has(CATEGORY_LABELS[cats[k]!]!);
    if (mine) scaled += e.size[k]!;
    else fixed += e.size[k]!;
  }
  const availableBytes = fixed + scaled - oom.requestedBytes + unallocated + oom.deviceFreeBytes;
  return {
    fixedBytes: fixed,
    scaledBytes: scaled,
    availableBytes,
    fraction: scaled > 0 ? Math.max(0, (availableBytes - fixed) / scaled) : 1,
  };
}
