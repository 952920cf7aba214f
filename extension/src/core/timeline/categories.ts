import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { NOT_BACKWARD } from '../analysis/backward';
import { Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';

/** What a block is for, inferred from its stack, its lifetime and the backward passes. */
export const enum Category {
  Parameter = 0,
  Gradient = 1,
  Optimizer = 2,
  Activation = 3,
  Temporary = 4,
  BeforeRecording = 5,
  Other = 6,
}

export const CATEGORY_LABELS = [
  'parameters',
  'gradients',
  'optimizer state',
  'activations',
  'temporaries',
  'before recording',
  'other',
] as const;

/** How each category is inferred: shown in the timeline's legend, so users can judge it. */
export const CATEGORY_RULES = [
  'parameters: allocated while a module is built or moved (torch.nn module __init__/reset_parameters/_apply/to/cuda, torch.nn.init, Parameter)',
  'gradients: allocated during a backward pass, alive after it ends, and the size of a parameter',
  'optimizer state: allocated under torch.optim and alive past the next backward pass (or to the end)',
  'activations: allocated outside backward and freed during the next backward pass (saved for backward)',
  'temporaries: freed within their own iteration (before the second backward pass after them begins)',
  'before recording: alive before the recorded window began (no alloc event)',
  'other: no stack outside backward, or held across iterations with none of the roles above (workspaces, caches, leaks)',
] as const;

const PARAM_FILE = /torch\/nn\/(?:parameter|init)\.py$/;
const MODULE_FILE = /torch\/nn\/modules\/[^/]+\.py$/;
const MODULE_NAMES = new Set(['_apply', 'to', 'cuda', 'to_empty', '__init__', 'reset_parameters']);
const OPTIM_FILE = /torch\/optim\//;
const MODULE_CALL_FILE = /torch\/nn\/modules\/module\.py$/;
const MODULE_CALLS = new Set(['_call_impl', '_wrapped_call_impl', 'inner']);

type Phases = { readonly start: Int32Array; readonly end: Int32Array };
// One analysis is asked by the timeline, the leak detector and the OOM doctor: computed once each.
const phasesOf = new WeakMap<DeviceAnalysis, Phases>();
const categoriesOf = new WeakMap<Phases, Uint8Array>();

/** Backward passes as [start, end) event ranges: runs of backward allocations, ended by forward code. */
export function backwardPhases(s: Snapshot, a: DeviceAnalysis): Phases {
  let p = phasesOf.get(a);
  if (!p) phasesOf.set(a, (p = findPhases(s, a)));
  return p;
}

function findPhases(s: Snapshot, a: DeviceAnalysis): Phases {
  const e = a.replay.elements;
  const n = a.replay.n;
  const starts: number[] = [];
  const ends: number[] = [];
  const python = new Map<number, boolean>();
  const hasPython = (stack: number): boolean => {
    let p = python.get(stack);
    if (p === undefined) {
      p = false;
      for (const f of s.stacks.get(stack)) if (a.classifier.kind(f) !== FrameKind.Cpp) p = true;
      python.set(stack, p);
    }
    return p;
  };
  let open = -1;
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace) continue;
    const bw = a.backward.site[k] !== NOT_BACKWARD;
    if (bw && open < 0) open = e.alloc[k]!;
    else if (!bw && open >= 0 && hasPython(e.stack[k]!)) {
      starts.push(open);
      ends.push(e.alloc[k]!);
      open = -1;
    }
  }
  if (open >= 0) {
    starts.push(open);
    ends.push(n);
  }
  return { start: Int32Array.from(starts), end: Int32Array.from(ends) };
}

/** Index of the last phase starting at or before `i`, or -1. */
function phaseAt(starts: Int32Array, i: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Each replay element's category (read-only: shared by everyone who asks with the same phases). */
export function categorize(s: Snapshot, a: DeviceAnalysis, phases: Phases): Uint8Array {
  let c = categoriesOf.get(phases);
  if (!c) categoriesOf.set(phases, (c = categorizeWith(s, a, phases)));
  return c;
}

function categorizeWith(s: Snapshot, a: DeviceAnalysis, phases: Phases): Uint8Array {
  const e = a.replay.elements;
  const n = a.replay.n;
  const out = new Uint8Array(e.count);
  // Per stack: 0 none, 1 python frames, 2 module building, 3 optimizer.
  const roles = new Map<number, number>();
  const role = (stack: number): number => {
    let r = roles.get(stack);
    if (r !== undefined) return r;
    r = 0;
    // A module called below optimizer.step() is the step's closure running the forward (Lightning):
    // what it allocates is not optimizer state.
    let called = false;
    for (const f of s.stacks.get(stack)) {
      if (a.classifier.kind(f) === FrameKind.Cpp) continue;
      r = Math.max(r, 1);
      const file = s.frames.fileOf(f).replace(/\\/g, '/');
      if (MODULE_CALL_FILE.test(file) && MODULE_CALLS.has(s.frames.nameOf(f))) called = true;
      if (OPTIM_FILE.test(file) && !called) r = 3;
      else if (r < 3 && (PARAM_FILE.test(file) || (MODULE_FILE.test(file) && MODULE_NAMES.has(s.frames.nameOf(f))))) r = 2;
    }
    roles.set(stack, r);
    return r;
  };
  const starts = phases.start;
  const nextStart = (p: number, ahead: number) => (p + ahead < starts.length ? starts[p + ahead]! : n);
  const paramSizes = new Set<number>();
  const backward: number[] = [];
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace) {
      out[k] = Category.BeforeRecording;
      paramSizes.add(e.size[k]!);
      continue;
    }
    const alloc = e.alloc[k]!;
    const free = e.free[k]!;
    const p = phaseAt(starts, alloc);
    if (a.backward.site[k] !== NOT_BACKWARD) {
      backward.push(k);
      continue;
    }
    const r = role(e.stack[k]!);
    if (r === 3) out[k] = free >= n || free > nextStart(p, 1) ? Category.Optimizer : Category.Temporary;
    else if (r === 2) {
      out[k] = Category.Parameter;
      paramSizes.add(e.size[k]!);
    } else if (r === 1) {
      const q = phaseAt(starts, free);
      if (q === p + 1 && free < phases.end[q]!) out[k] = Category.Activation;
      else out[k] = free < nextStart(p, 2) && free < n ? Category.Temporary : Category.Other;
    } else out[k] = Category.Other;
  }
  // Backward allocations need the parameters' sizes: a gradient is shaped like its parameter.
  for (const k of backward) {
    const p = phaseAt(starts, e.alloc[k]!);
    const end = p >= 0 ? phases.end[p]! : n;
    const free = e.free[k]!;
    if (free <= end && free < n) out[k] = Category.Temporary;
    else out[k] = paramSizes.has(e.size[k]!) ? Category.Gradient : Category.Other;
  }
  return out;
}
