import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { NOT_BACKWARD } from '../analysis/backward';
import { Origin } from '../analysis/replay';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, categorize, Category } from '../timeline/categories';

/** The line whose call is checkpointed (`x = block(x)`), as `file:line`; the file matched by its path's end. */
export interface CallSite {
  file: string;
  line: number;
}

export interface CheckpointPlan {
  /** Element → the trace index after which it is allocated instead: its recomputation in backward. */
  moved: Map<number, number>;
  /** Calls of the site found (each a checkpoint's forward). */
  calls: number;
  /** Activations moved, and what each call keeps (its output, the next call's input). */
  movedBytes: number;
  keptBytes: number;
}

/** `path/to/model.py:42` → the site; undefined when it is not FILE:LINE. */
export function parseCallSite(text: string): CallSite | undefined {
  const m = /^(.+):(\d+)$/.exec(text.trim());
  return m && Number(m[2]) > 0 ? { file: m[1]!.replace(/\\/g, '/'), line: Number(m[2]) } : undefined;
}

const endsWithPath = (path: string, tail: string) =>
  path === tail || path.endsWith(`/${tail}`) || (tail.startsWith('/') && path.endsWith(tail));

/**
 * Non-reentrant activation checkpointing of the calls made at a line: each call's activations
 * (made under that line in the forward, freed by the backward) are not kept through the forward but
 * made again when the backward reaches the call (just before the first of them is freed), then freed
 * as recorded. A call's last activation is its output, the next call's input: kept. Calls are told
 * apart where the stack of the first allocation under the line comes round again (a loop over
 * identical blocks). The recomputation's own temporaries are not added.
 */
export function checkpointPlan(s: Snapshot, a: DeviceAnalysis, site: CallSite): CheckpointPlan {
  const e = a.replay.elements;
  const n = a.replay.n;
  const cats = categorize(s, a, backwardPhases(s, a));
  const under = new Map<number, boolean>();
  const isUnder = (stack: number): boolean => {
    let r = under.get(stack);
    if (r === undefined) {
      r = false;
      for (const f of s.stacks.get(stack))
        if (s.frames.lineOf(f) === site.line && endsWithPath(s.frames.fileOf(f).replace(/\\/g, '/'), site.file)) r = true;
      under.set(stack, r);
    }
    return r;
  };
  const mine: number[] = [];
  for (let k = 0; k < e.count; k++)
    if (e.origin[k] === Origin.Trace && a.backward.site[k] === NOT_BACKWARD && isUnder(e.stack[k]!)) mine.push(k);
  mine.sort((x, y) => e.alloc[x]! - e.alloc[y]!);
  const calls: number[][] = [];
  const first = mine.length ? e.stack[mine[0]!] : undefined;
  for (const k of mine) {
    if (e.stack[k] === first || !calls.length) calls.push([]);
    calls.at(-1)!.push(k);
  }
  const plan: CheckpointPlan = { moved: new Map(), calls: calls.length, movedBytes: 0, keptBytes: 0 };
  for (const call of calls) {
    const saved = call.filter((k) => cats[k] === Category.Activation && e.free[k]! < n);
    const output = saved.pop();
    if (output !== undefined) plan.keptBytes += e.size[output]!;
    if (!saved.length) continue;
    // Just before the first of them is given back (free_requested, which precedes free_completed).
    const recompute = saved.reduce((m, k) => Math.min(m, e.freeRequested[k]!, e.free[k]!), Infinity) - 1;
    for (const k of saved) {
      plan.moved.set(k, recompute);
      plan.movedBytes += e.size[k]!;
    }
  }
  return plan;
}

/** The trace's events in the order the checkpointed run makes them: each moved allocation right after its new index. */
export function reorder(a: DeviceAnalysis, moved: ReadonlyMap<number, number>): Int32Array {
  const e = a.replay.elements;
  const after = new Map<number, number[]>();
  const skip = new Set<number>();
  for (const [k, at] of moved) {
    skip.add(e.alloc[k]!);
    const list = after.get(at);
    if (list) list.push(e.alloc[k]!);
    else after.set(at, [e.alloc[k]!]);
  }
  const out = new Int32Array(a.replay.n);
  let j = 0;
  for (const i of (after.get(-1) ?? []).sort((x, y) => x - y)) out[j++] = i;
  for (let i = 0; i < a.replay.n; i++) {
    if (!skip.has(i)) out[j++] = i;
    for (const m of (after.get(i) ?? []).sort((x, y) => x - y)) out[j++] = m;
  }
  return out;
}
