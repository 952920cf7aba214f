import type { ParamKind, ParamRecords } from '../run/paramsFile';
import type { DeviceAnalysis } from './deviceAnalysis';
import { matchParams } from './paramsMatch';
import { liveAt } from './replay';

/** The bytes credited to one (name, kind, state key). */
export interface Credited {
  name: string;
  kind: ParamKind;
  key: string | null;
  named: boolean;
  bytes: number;
  blocks: number;
}

export interface ModuleCredit {
  /** The parameter's path less its last part; `(unnamed parameters)` for those the agent could not name. */
  module: string;
  bytes: number;
  blocks: number;
  byKind: Record<ParamKind, number>;
}

export interface ParamsCredit {
  device: number;
  /** The trace index of the instant (-1: before the first event). */
  index: number;
  liveBytes: number;
  creditedBytes: number;
  byKind: Record<ParamKind, { bytes: number; blocks: number }>;
  /** Largest first. */
  tensors: Credited[];
  /** Largest first. */
  modules: ModuleCredit[];
  /** The live blocks (element ids) and, for each, its index in `tensors` or -1. */
  live: Int32Array;
  credit: Int32Array;
  notes: string[];
}

const kinds = <T>(f: () => T): Record<ParamKind, T> => ({ parameter: f(), gradient: f(), optimizer_state: f() });
const byBytes =
  <T extends { bytes: number }>(label: (x: T) => string) =>
  (x: T, y: T) =>
    y.bytes - x.bytes || (label(x) < label(y) ? -1 : 1);

/** The module a parameter belongs to: its path less the last part (`transformer.h.0.attn.c_attn`). */
export function moduleOf(t: { name: string; named: boolean }): string {
  return t.named ? t.name.slice(0, Math.max(0, t.name.lastIndexOf('.'))) || '(model)' : '(unnamed parameters)';
}

/**
 * Parameters, gradients and optimizer state live after trace event `index`, credited to the named
 * parameters the run's optimizer steps saw at their addresses (paramsMatch.ts says when a block
 * counts as seen). `rec`: the run folder's params.jsonl (run/paramsFile.ts).
 */
export function creditParams(a: DeviceAnalysis, index: number, rec: ParamRecords): ParamsCredit {
  const e = a.replay.elements;
  const live = liveAt(e, index);
  const match = matchParams(a.replay, a.device, live, rec);
  const credit = new Int32Array(live.length).fill(-1);
  const ids = new Map<string, number>();
  const found: Credited[] = [];
  let liveBytes = 0;
  for (let j = 0; j < live.length; j++) {
    const size = e.size[live[j]!]!;
    liveBytes += size;
    const t = rec.tensors[match[j]!];
    if (!t) continue;
    const key = `${t.name}\0${t.kind}\0${t.key ?? ''}`;
    let id = ids.get(key);
    if (id === undefined) {
      ids.set(key, (id = found.length));
      found.push({ name: t.name, kind: t.kind, key: t.key, named: t.named, bytes: 0, blocks: 0 });
    }
    found[id]!.bytes += size;
    found[id]!.blocks++;
    credit[j] = id;
  }
  const tensors = [...found].sort(byBytes((x) => `${x.name}\0${x.kind}\0${x.key ?? ''}`));
  const rank = new Map(tensors.map((t, i) => [t, i]));
  for (let j = 0; j < credit.length; j++) if (credit[j]! >= 0) credit[j] = rank.get(found[credit[j]!]!)!;
  const byKind = kinds(() => ({ bytes: 0, blocks: 0 }));
  const mods = new Map<string, ModuleCredit>();
  for (const t of tensors) {
    byKind[t.kind].bytes += t.bytes;
    byKind[t.kind].blocks += t.blocks;
    const module = moduleOf(t);
    let m = mods.get(module);
    if (!m) mods.set(module, (m = { module, bytes: 0, blocks: 0, byKind: kinds(() => 0) }));
    m.bytes += t.bytes;
    m.blocks += t.blocks;
    m.byKind[t.kind] += t.bytes;
  }
  const notes: string[] = [];
  if (a.replay.n > 0 && Number.isNaN(a.replay.timeUs[0]!))
    notes.push('the snapshot records no event times (torch < 2.2): nothing is credited by name');
  if (rec.capped) notes.push("the run's parameter record reached its size cap: blocks made after it are not credited");
  return {
    device: a.device,
    index,
    liveBytes,
    creditedBytes: tensors.reduce((s, t) => s + t.bytes, 0),
    byKind,
    tensors,
    modules: [...mods.values()].sort(byBytes((m) => m.module)),
    live,
    credit,
    notes,
  };
}
