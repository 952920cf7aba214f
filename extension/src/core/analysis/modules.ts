import { backwardPhases, categorize, Category, CATEGORY_LABELS } from '../timeline/categories';
import type { Snapshot } from '../snapshot/model';
import { rowOf, traceOf } from '../snapshot/model';
import type { DeviceAnalysis } from './deviceAnalysis';
import { liveAt } from './replay';
import { Origin } from './replay';
import { FrameKind, isTorchOrGenerated } from './userCode';

/**
 * The agent's module scope rides in a trace entry's `user_metadata` after this separator
 * (extension/agent/headroom_agent/modules.py): "<workload's own string>\x1ehr:f:<path>" while a
 * module's forward ran, "…\x1ehr:b:<path>" while its backward ran.
 */
export const SCOPE_SEP = '\x1ehr:';

export type Phase = 'forward' | 'backward';

export interface Scope {
  phase: Phase;
  /** The module's name in the model (`transformer.h.3.attn`); the outermost module by its class. */
  path: string;
}

/** Splits a trace entry's metadata into the workload's own part and Headroom's module scope. */
export function splitMetadata(meta: string): { user: string; scope: Scope | null } {
  const i = meta.indexOf(SCOPE_SEP);
  if (i < 0) return { user: meta, scope: null };
  const tag = meta.slice(i + SCOPE_SEP.length);
  const phase = tag.startsWith('f:') ? 'forward' : tag.startsWith('b:') ? 'backward' : null;
  const path = tag.slice(2);
  return { user: meta.slice(0, i), scope: phase && path ? { phase, path } : null };
}

export interface ModuleStat {
  path: string;
  /** Live bytes allocated while this module (and no deeper one) ran. */
  selfBytes: number;
  selfBlocks: number;
  /** This module and every module under it (paths below it). */
  inclusiveBytes: number;
  forwardBytes: number;
  backwardBytes: number;
  /** Self bytes by category (CATEGORY_LABELS order). */
  categories: number[];
  /** The innermost Python frame outside torch that allocated most of its self bytes: model code, also in site-packages. */
  where: { file: string; line: number; name: string; bytes: number } | null;
}

export interface ModuleBreakdown {
  /** Live bytes at the instant (requested sizes, as the report's figures). */
  totalBytes: number;
  /** Live bytes allocated inside some module's forward or backward. */
  scopedBytes: number;
  /** Whether any trace entry carries a module scope (a run recorded with torch ≥ 2.10). */
  recorded: boolean;
  /** In model order: a parent before its children, numbered children by number. */
  modules: ModuleStat[];
  /** By category: all live bytes, and those inside a module. */
  categories: { total: number[]; scoped: number[] };
}

const zeros = () => new Array<number>(CATEGORY_LABELS.length).fill(0);
const newStat = (path: string): ModuleStat => ({
  path,
  selfBytes: 0,
  selfBlocks: 0,
  inclusiveBytes: 0,
  forwardBytes: 0,
  backwardBytes: 0,
  categories: zeros(),
  where: null,
});

/** Whether any trace entry carries a module scope (a run recorded with `--modules on`). */
export function hasModuleScopes(s: Snapshot): boolean {
  for (const meta of s.columns.userMetadata.values()) if (meta.includes(SCOPE_SEP)) return true;
  return false;
}

/**
 * Each element's module scope, from the metadata of its alloc event (none for blocks live before
 * recording or known only by their free); each distinct metadata string is parsed once.
 */
export function scopeReader(s: Snapshot, a: DeviceAnalysis): (element: number) => Scope | null {
  const t = traceOf(s, a.device);
  const e = a.replay.elements;
  const parsed = new Map<string, Scope | null>();
  return (k) => {
    if (e.origin[k] !== Origin.Trace || e.alloc[k]! < 0) return null;
    const meta = s.columns.userMetadata.get(rowOf(t, e.alloc[k]!));
    if (!meta) return null;
    let scope = parsed.get(meta);
    if (scope === undefined) parsed.set(meta, (scope = splitMetadata(meta).scope));
    return scope;
  };
}

/** Live memory at trace index `index`, credited to the module that ran when each block was allocated. */
export function byModule(s: Snapshot, a: DeviceAnalysis, index: number): ModuleBreakdown {
  const e = a.replay.elements;
  const cats = categorize(s, a, backwardPhases(s, a));
  const live = liveAt(e, index);
  const stats = new Map<string, ModuleStat>();
  // Per module: bytes by the model frame that allocated them (the largest becomes `where`).
  const wheres = new Map<string, Map<number, number>>();
  const scopeOf = scopeReader(s, a);
  const frameOf = new Map<number, number>();
  const total = zeros();
  const scoped = zeros();
  let totalBytes = 0;
  let scopedBytes = 0;
  const recorded = hasModuleScopes(s);
  for (let i = 0; i < live.length; i++) {
    const k = live[i]!;
    const bytes = e.size[k]!;
    const cat = cats[k] ?? Category.Other;
    totalBytes += bytes;
    total[cat]! += bytes;
    const scope = scopeOf(k);
    if (!scope) continue;
    scopedBytes += bytes;
    scoped[cat]! += bytes;
    let st = stats.get(scope.path);
    if (!st) stats.set(scope.path, (st = newStat(scope.path)));
    st.selfBytes += bytes;
    st.selfBlocks++;
    st.categories[cat]! += bytes;
    if (scope.phase === 'forward') st.forwardBytes += bytes;
    else st.backwardBytes += bytes;
    const stack = e.stack[k]!;
    let f = frameOf.get(stack);
    if (f === undefined) frameOf.set(stack, (f = modelFrame(s, a, stack)));
    if (f >= 0) {
      let w = wheres.get(scope.path);
      if (!w) wheres.set(scope.path, (w = new Map()));
      w.set(f, (w.get(f) ?? 0) + bytes);
    }
  }
  // Parents that allocated nothing themselves still get a row: the tree needs them.
  for (const path of [...stats.keys()]) {
    for (let j = path.indexOf('.'); j > 0; j = path.indexOf('.', j + 1)) {
      const parent = path.slice(0, j);
      if (!stats.has(parent)) stats.set(parent, newStat(parent));
    }
  }
  for (const st of stats.values()) {
    st.inclusiveBytes += st.selfBytes;
    for (let j = st.path.indexOf('.'); j > 0; j = st.path.indexOf('.', j + 1))
      stats.get(st.path.slice(0, j))!.inclusiveBytes += st.selfBytes;
    let best = -1;
    let most = 0;
    for (const [f, b] of wheres.get(st.path) ?? []) if (b > most) [best, most] = [f, b];
    if (best >= 0) st.where = { file: s.frames.fileOf(best), line: s.frames.lineOf(best), name: s.frames.nameOf(best), bytes: most };
  }
  const modules = [...stats.values()].sort((x, y) => modelOrder(x.path, y.path));
  return { totalBytes, scopedBytes, recorded, modules, categories: { total, scoped } };
}

/** Paths in model order: a parent before its children, numbered children (h.2, h.10) by number. */
export function modelOrder(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    const na = Number(pa[i]);
    const nb = Number(pb[i]);
    if (Number.isInteger(na) && Number.isInteger(nb)) return na - nb;
    return pa[i]! < pb[i]! ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** The innermost Python frame of a stack that is neither torch's nor Headroom's: the model's own code. */
function modelFrame(s: Snapshot, a: DeviceAnalysis, stack: number): number {
  for (const f of s.stacks.get(stack)) {
    if (a.classifier.kind(f) === FrameKind.Cpp) continue;
    if (!isTorchOrGenerated(s.frames.fileOf(f))) return f;
  }
  return -1;
}
