import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, categorize, Category } from '../timeline/categories';

/** Whether an allocation's size follows the batch (or sequence), and why it was judged so. */
export const enum Role {
  /** Parameters, gradients, optimizer state, caches and workspaces: the same at any batch. */
  Fixed = 0,
  /** Activations, inputs and temporaries of an iteration: proportional to the batch. */
  Batch = 1,
}

/** Why an allocation is fixed (or scaled): each reason's bytes at the recorded peak become the answer's assumptions. */
export const REASONS = [
  'parameters, gradients and optimizer state',
  'allocated before the recording began',
  'held across iterations (workspaces, caches)',
  'shaped like a parameter (a cast under autocast, a weight gradient)',
  'made inside the optimizer step',
  'not a multiple of the recorded batch',
  'activations, inputs and temporaries of an iteration',
] as const;
export type Reason = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export const SCALED: Reason = 6;

export interface Roles {
  role: Uint8Array;
  reason: Uint8Array;
}

const OPTIM_FILE = /torch\/optim\//;
const MODULE_CALL_FILE = /torch\/nn\/modules\/module\.py$/;

/**
 * Each allocation's role from one run: the timeline's categories (what a block is for, from its
 * stack, its lifetime and the backward passes), then the sizes: a block of a parameter's size (or
 * half or twice it: a dtype cast) is the parameter's, not the batch's; a block the optimizer makes
 * is shaped like the parameters. With the recorded batch known, a size that is not a multiple of
 * it cannot hold whole samples.
 */
export function scaleRoles(s: Snapshot, a: DeviceAnalysis, recordedBatch?: number): Roles {
  const e = a.replay.elements;
  const cats = categorize(s, a, backwardPhases(s, a));
  const params = new Set<number>();
  for (let k = 0; k < e.count; k++) if (cats[k] === Category.Parameter || e.origin[k] !== Origin.Trace) params.add(e.size[k]!);
  const paramShaped = (n: number) => params.has(n) || params.has(n * 2) || (n % 2 === 0 && params.has(n / 2));
  const optim = new Map<number, boolean>();
  const inOptimizer = (stack: number): boolean => {
    let r = optim.get(stack);
    if (r === undefined) {
      // Innermost first: an optimizer frame before any module call (a closure's forward is not the step's).
      r = false;
      for (const f of s.stacks.get(stack)) {
        if (a.classifier.kind(f) === FrameKind.Cpp) continue;
        const file = s.frames.fileOf(f).replace(/\\/g, '/');
        if (MODULE_CALL_FILE.test(file)) break;
        if (OPTIM_FILE.test(file)) {
          r = true;
          break;
        }
      }
      optim.set(stack, r);
    }
    return r;
  };
  const role = new Uint8Array(e.count);
  const reason = new Uint8Array(e.count);
  for (let k = 0; k < e.count; k++) {
    const c = cats[k]!;
    const size = e.size[k]!;
    let why: Reason;
    if (e.origin[k] !== Origin.Trace || c === Category.BeforeRecording) why = 1;
    else if (c === Category.Parameter || c === Category.Gradient || c === Category.Optimizer) why = 0;
    else if (c === Category.Other) why = 2;
    else if (inOptimizer(e.stack[k]!)) why = 4;
    else if (paramShaped(size)) why = 3;
    else if (recordedBatch && size % recordedBatch !== 0) why = 5;
    else why = SCALED;
    reason[k] = why;
    role[k] = why === SCALED ? Role.Batch : Role.Fixed;
  }
  return { role, reason };
}
