import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { Origin } from '../analysis/replay';
import { detectLeaks, iterationOf } from '../diagnose/leaks';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, categorize, CATEGORY_RULES } from '../timeline/categories';
import { Kind, KIND_COUNT } from './kindLabels';
import { libraryWorkspaces } from './workspaces';

// What each block is, one classification for every surface (the timeline, the summary, hovers and
// code lenses, the CLI, the assistants' tools): the roles that lifetimes and stacks show
// (timeline/categories.ts), then two verdicts over them. A block the leak check finds kept across
// iterations is leaked, whatever its lifetime looked like; the workspaces cuBLAS and cuBLASLt keep
// for the process's life are library workspaces, not the memory of the line that first needed them.

/** How each kind is inferred (the timeline's legend, docs/kinds.md). */
export const KIND_RULES = [
  ...CATEGORY_RULES,
  'leaked: created at a line the leak check names (live memory grows steadily per iteration) and still alive a whole iteration later',
  'library workspaces: the workspace cuBLAS or cuBLASLt keeps per thread and stream for the whole process (C++ frames, else its size, allocated once and never freed)',
] as const;

const cache = new WeakMap<DeviceAnalysis, Uint8Array>();

/** Each replay element's kind (read-only: shared by every surface that asks about one analysis). */
export function blockKinds(s: Snapshot, a: DeviceAnalysis): Uint8Array {
  let k = cache.get(a);
  if (!k) cache.set(a, (k = classify(s, a)));
  return k;
}

function classify(s: Snapshot, a: DeviceAnalysis): Uint8Array {
  const out = Uint8Array.from(categorize(s, a, backwardPhases(s, a)));
  for (const k of libraryWorkspaces(s, a, out)) out[k] = Kind.Workspace;
  markLeaked(s, a, out);
  return out;
}

function markLeaked(s: Snapshot, a: DeviceAnalysis, out: Uint8Array): void {
  const leak = detectLeaks(s, a);
  if (!leak.leaking || leak.boundaries.length < 3) return;
  const lines = new Set(leak.lines.map((l) => `${l.line}\u0000${l.file}`));
  const at = leak.boundaries;
  const e = a.replay.elements;
  // The warm-up iterations' blocks too: the check skips them to measure, but they are kept alike.
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace || out[k] === Kind.Workspace) continue;
    // Alive past the end of the iteration after its own: kept, not a step's transient.
    const i = iterationOf(at, e.alloc[k]!);
    if (i + 1 < at.length && e.free[k]! <= at[i + 1]!) continue;
    const f = a.classifier.firstUser(s.stacks.get(e.stack[k]!));
    if (f >= 0 && lines.has(`${s.frames.lineOf(f)}\u0000${s.frames.fileOf(f)}`)) out[k] = Kind.Leaked;
  }
}

/** Bytes by kind of the given elements. */
export function bytesByKind(kinds: Uint8Array, e: { size: ArrayLike<number> }, elements: ArrayLike<number>): number[] {
  const out = new Array<number>(KIND_COUNT).fill(0);
  for (let i = 0; i < elements.length; i++) {
    const k = elements[i]!;
    out[kinds[k]!] = (out[kinds[k]!] ?? 0) + e.size[k]!;
  }
  return out;
}
