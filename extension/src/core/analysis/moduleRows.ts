import type { ModuleRow } from '../protocol';
import type { Snapshot } from '../snapshot/model';
import type { DeviceAnalysis } from './deviceAnalysis';
import { byModule, hasModuleScopes } from './modules';

/** Rows the summary page shows at most: the largest modules, kept in model order. */
export const MAX_MODULE_ROWS = 40;

/** The summary page's "by module" table, or undefined when the run recorded no module scopes. */
export function moduleRows(s: Snapshot, a: DeviceAnalysis, index: number): ModuleRow[] | undefined {
  if (!hasModuleScopes(s)) return undefined;
  const m = byModule(s, a, index).modules.filter((x) => x.inclusiveBytes > 0);
  const keep = new Set([...m].sort((x, y) => y.inclusiveBytes - x.inclusiveBytes).slice(0, MAX_MODULE_ROWS));
  return m
    .filter((x) => keep.has(x))
    .map((x) => ({
      path: x.path,
      depth: x.path.split('.').length - 1,
      inclusiveBytes: x.inclusiveBytes,
      selfBytes: x.selfBytes,
      forwardBytes: x.forwardBytes,
      backwardBytes: x.backwardBytes,
    }));
}
