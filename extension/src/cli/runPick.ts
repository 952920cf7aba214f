import { statSync } from 'node:fs';
import { bestSnapshot, readRun } from '../core/run/runFolder';
import type { ProcessRun } from '../core/run/runFolder';
import { plain } from '../shared/text';
import { UsageError } from './args';

export interface Picked {
  /** The snapshot file to read. */
  file: string;
  /** The process folder it came from, when a run folder was named. */
  process?: ProcessRun;
}

/**
 * A snapshot named directly, or a run folder (`headroom run`'s, or torch_headroom's): its main
 * process's best snapshot (the OOM's, else the peak's, else the last), as the editor opens it.
 */
export function pickSnapshot(path: string): Picked {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    return { file: path }; // the reader says what is wrong with it
  }
  if (!dir) return { file: path };
  const run = readRun(path);
  // A folder that is no run: the reader's own error ("it is a directory, not a regular file").
  if (!run.processes.length && !run.launch) return { file: path };
  const process = run.processes.find((p) => p.dir === run.dir && bestSnapshot(p)) ?? run.processes.find((p) => bestSnapshot(p));
  if (!process)
    throw new UsageError(
      `the run folder ${plain(path)} holds no snapshot: its processes wrote none (still running, or ended before one was taken)`,
    );
  return { file: bestSnapshot(process)!.path, process };
}
