import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
/**
 * A run's processes live in sibling folders, as the agent names them (extension/agent/
 * headroom_agent/identity.py): <run> for the launched process, <run>-rank<r>[-restart<k>] for a
 * rank (torchrun's workers, spawned ranks), <run>-pid<p> for any other process that held CUDA
 * memory (a spawned or forked worker without a rank).
 */
const SUFFIX = /-(?:rank(\d+)(?:-restart\d+)?|pid(\d+))$/;

/** The run's own folder, given it or any of its process folders. */
export function runDirOf(dir: string): string {
  return dir.replace(SUFFIX, '');
}

/** Whether `name` is a process folder of the run named `run` (its own folder included). */
export function isProcessFolder(name: string, run: string): boolean {
  return name === run || (SUFFIX.test(name) && name.replace(SUFFIX, '') === run);
}

/** Whether a folder name is a process folder beside its run's (not a run of its own). */
export function isSideProcessFolder(name: string): boolean {
  return SUFFIX.test(name);
}

/**
 * The runs of a runs folder, newest first (their names begin with the launch time): its folders,
 * less the process folders beside a run (read with their run). None when it cannot be read.
 */
export function runFolders(root: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const isDir = (n: string) => {
    try {
      return statSync(join(root, n)).isDirectory();
    } catch {
      return false; // a dangling link
    }
  };
  return names
    .filter((n) => !isSideProcessFolder(n) && isDir(n))
    .sort()
    .reverse();
}

/** The rank or pid a process folder's name carries. */
export function folderIdentity(name: string): { rank: number | null; pid: number | null } {
  const m = SUFFIX.exec(name);
  return { rank: m?.[1] !== undefined ? Number(m[1]) : null, pid: m?.[2] !== undefined ? Number(m[2]) : null };
}

/** "rank 1", "pid 4242" or "" (the launched process alone). */
export function processLabel(p: { rank: number | null; pid?: number | null }): string {
  if (p.rank !== null) return `rank ${p.rank}`;
  return p.pid !== null && p.pid !== undefined ? `pid ${p.pid}` : '';
}
