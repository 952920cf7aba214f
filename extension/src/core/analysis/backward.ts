import type { Snapshot } from '../snapshot/model';
import { Action } from '../snapshot/actions';
import type { DeviceTrace } from '../snapshot/model';
import type { Elements } from './replay';
import { stackFacts } from './backwardStacks';
import type { FrameClassifier } from './userCode';

export interface BackwardInfo {
  /** Per element: frame id of the user line that called backward(), -1 unknown, -2 not backward. */
  site: Int32Array;
  /** Per element: the autograd node that allocated it (stacks='all'), when named. */
  node: Map<number, string>;
}

export const NOT_BACKWARD = -2;

/** An autograd node's evaluation as recorded in external_annotations (record_function scopes). */
interface NodeWindow {
  start: number;
  end: number;
  name: string;
}

const ANNOTATED_NODE = /^autograd::engine::evaluate_function: (.+)$/;

/**
 * START/END pairs of `autograd::engine::evaluate_function: <Node>` scopes on this device, which
 * torch records when annotations are global (`_record_memory_history(global_record_annotations=True)`
 * or a profiler is on). Sorted by start; nested scopes keep the innermost for a time.
 */
function nodeWindows(s: Snapshot, device: number): NodeWindow[] {
  const open = new Map<string, number[]>();
  const out: NodeWindow[] = [];
  for (const a of s.annotations) {
    if (a.device !== device || Number.isNaN(a.timeUs)) continue;
    const m = ANNOTATED_NODE.exec(a.name);
    if (!m) continue;
    const starts = open.get(a.name) ?? [];
    if (a.stage === 'START') {
      starts.push(a.timeUs);
      open.set(a.name, starts);
    } else if (a.stage === 'END' && starts.length) {
      out.push({ start: starts.pop()!, end: a.timeUs, name: m[1]! });
    }
  }
  return out.sort((x, y) => x.start - y.start || y.end - x.end);
}

/** How many windows (sorted by start) start at or before `t`. */
function startedBy<W>(ws: readonly W[], start: (w: W) => number, t: number): number {
  let lo = 0;
  let hi = ws.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start(ws[mid]!) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The innermost annotated node window holding time `t`, if any. */
function windowAt(ws: readonly NodeWindow[], t: number): NodeWindow | undefined {
  const lo = startedBy(ws, (w) => w.start, t);
  for (let i = lo - 1; i >= 0 && i >= lo - 64; i--) if (ws[i]!.end >= t) return ws[i];
  return undefined;
}

/**
 * Backward allocations carry no Python stack: they run on autograd's engine thread. We recognise
 * them three ways. With stacks='all', their C++ frames name the engine and the node. When
 * annotations are global, their time falls inside an `autograd::engine::evaluate_function: <Node>`
 * scope. With stacks='python' alone they have no frames at all; they fall inside a "backward
 * window" that opens at an allocation whose Python stack enters torch.autograd's backward, and
 * closes at the next allocation with a Python stack that does not (checkpoint recomputation keeps
 * it open, and its own allocations, library frames only, count as backward too).
 */
/**
 * A backward() call the agent saw: its calling line and when it ran (epoch µs, the clock of the
 * trace's time_us). It names the call site of frameless allocations made inside the window even
 * where no framed allocation opened one (the first allocation of backward is often frameless).
 */
export interface CallWindow {
  startUs: number;
  endUs: number;
  file: string;
  line: number;
}

export function classifyBackward(
  s: Snapshot,
  t: DeviceTrace,
  e: Elements,
  cls: FrameClassifier,
  calls: readonly CallWindow[] = [],
): BackwardInfo {
  const site = new Int32Array(e.count).fill(NOT_BACKWARD);
  const node = new Map<number, string>();
  const annotated = nodeWindows(s, t.device);
  const recorded = [...calls].sort((a, b) => a.startUs - b.startUs);
  const callFrames = recorded.map((c) => s.frames.intern({ filename: c.file, line: c.line, name: 'backward' }));
  const recordedAt = (time: number): number => {
    const i = startedBy(recorded, (c) => c.startUs, time) - 1;
    return i >= 0 && recorded[i]!.endUs >= time ? callFrames[i]! : NOT_BACKWARD;
  };
  const factsOf = stackFacts(s, cls);

  // Walk the allocations in trace order, tracking the open window's call site. Trace elements
  // were created in the order of their alloc events, so one pointer follows along.
  let open = NOT_BACKWARD;
  let k = 0;
  for (let i = 0; i < t.length; i++) {
    if (t.action[i] !== Action.Alloc) continue;
    const { python, entry, recompute, engine, user, callSite, nodeName } = factsOf(t.stack[i]!);
    if (python) {
      if (entry) open = callSite;
      else if (!recompute) open = NOT_BACKWARD;
    }
    while (k < e.count && e.alloc[k] !== i) k++;
    if (k >= e.count) break;
    // The element's stack may come from the final state when the event had none.
    const own = s.stacks.get(e.stack[k]!).length;
    const scope = !python && annotated.length ? windowAt(annotated, t.timeUs[i]!) : undefined;
    const call = !python && recorded.length ? recordedAt(t.timeUs[i]!) : NOT_BACKWARD;
    if (!python && (engine || scope || call !== NOT_BACKWARD || (own === 0 && open !== NOT_BACKWARD))) {
      site[k] = call !== NOT_BACKWARD ? call : open === NOT_BACKWARD ? -1 : open;
      const name = nodeName || scope?.name;
      if (name) node.set(k, name);
    } else if (recompute && !user && open !== NOT_BACKWARD) {
      // Forward code re-run by checkpoint on the engine thread: no user frame, but backward's memory.
      site[k] = open;
      node.set(k, 'checkpoint recomputation');
    }
  }
  return { site, node };
}
