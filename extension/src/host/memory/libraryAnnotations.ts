import type { DeviceAnalysis } from '../../core/analysis/deviceAnalysis';
import { libraryFiles, libraryLines } from '../../core/analysis/libraryLines';
import type { LineStat } from '../../core/analysis/attribution';
import type { Snapshot } from '../../core/snapshot/model';
import type { WorkspaceMapping } from './mapping';

/** The memory shown, as much of it as this needs (the view's current figures; no import of the view back). */
interface Shown {
  snapshot: Snapshot;
  analysis: DeviceAnalysis;
  instant: { index: number };
}

/**
 * The lines of library files (model code in site-packages) that the workspace has, by a path
 * mapping or the same path: a vendored copy, or a folder mapped onto the cluster's environment.
 * No suffix guess: a library's `utils.py` must never decorate the user's.
 */
export async function libraryLinesFor(c: Shown, mapping: WorkspaceMapping): Promise<LineStat[]> {
  const files = libraryFiles(c.snapshot, c.analysis);
  if (!files.length) return [];
  const local = await mapping.resolve(files, false, false);
  const mapped = files.filter((f) => local.get(f));
  return libraryLines(c.snapshot, c.analysis, c.instant.index, mapped);
}
