// The progressive load, apart from load.child.ts so that the child builds from an older checkout
// (the previous reader, which has none) with this file swapped for a plain load.
import { loadProgressively } from '../extension/src/core/analysis/progressive';
import type { Snapshot } from '../extension/src/core/snapshot/model';

export function progressive(path: string, onFirst: () => void): Promise<Snapshot> {
  return loadProgressively(path, { onPartial: onFirst });
}
