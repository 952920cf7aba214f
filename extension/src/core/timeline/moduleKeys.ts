import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { hasModuleScopes, modelOrder, scopeReader } from '../analysis/modules';
import type { Snapshot } from '../snapshot/model';
import type { KeyInfo } from './modelTypes';

export const NO_MODULE = 'outside any module (parameters, optimizer, data, before recording)';
export const NOT_RECORDED = 'no module scopes in this run (record with headroom run --modules on)';

/**
 * Module keys for colour-by-module: each block by the module whose forward or backward ran when it
 * was allocated (the agent's scope in `user_metadata`), forward and backward of one module alike.
 * Key 0 holds everything outside a module. Keys 1.. are in model order, so a layer's bands sit
 * together and in the model's order.
 */
export function moduleKeys(s: Snapshot, a: DeviceAnalysis): { key: Int32Array; keys: KeyInfo[]; order: Int32Array } {
  const e = a.replay.elements;
  const key = new Int32Array(e.count);
  if (!hasModuleScopes(s)) return { key, keys: [{ label: NOT_RECORDED }], order: Int32Array.of(0) };
  const scopeOf = scopeReader(s, a);
  const paths = new Map<string, number>();
  const raw = new Int32Array(e.count);
  for (let k = 0; k < e.count; k++) {
    const path = scopeOf(k)?.path;
    if (path === undefined) continue;
    let id = paths.get(path);
    if (id === undefined) paths.set(path, (id = paths.size + 1));
    raw[k] = id;
  }
  // Renumber in model order: a parent before its children, h.2 before h.10.
  const sorted = [...paths.keys()].sort(modelOrder);
  const remap = new Int32Array(paths.size + 1);
  sorted.forEach((p, i) => (remap[paths.get(p)!] = i + 1));
  for (let k = 0; k < e.count; k++) key[k] = remap[raw[k]!]!;
  const keys: KeyInfo[] = [{ label: NO_MODULE }, ...sorted.map((label) => ({ label }))];
  return { key, keys, order: Int32Array.from(keys.map((_, i) => i)) };
}
