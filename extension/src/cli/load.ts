import { loadSnapshotFile, loadSnapshotStream } from '../core/snapshot/load';
import type { Snapshot } from '../core/snapshot/model';
import { formatBytes } from '../shared/format';
import { limitsUsage } from '../core/limits';
import { plain } from '../shared/text';
import { cliLimits } from './args';

/** For the usage text: how to raise the reader's limits. */
export const LIMIT_USAGE = `--limit NAME=VALUE raises a snapshot reader limit (repeatable), e.g. --limit trace-entries=200M.
  Limits and defaults: ${limitsUsage()}`;

/** Loads a snapshot for a command, with a progress line on stderr when it is a terminal. */
export async function loadForCli(path: string): Promise<Snapshot> {
  // `-`: a snapshot piped in (ssh gpu-box cat run/snapshot-peak.pickle | headroom analyze -).
  if (path === '-') return loadSnapshotStream(process.stdin as AsyncIterable<Uint8Array>, { limits: cliLimits });
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const s = await loadSnapshotFile(path, {
    limits: cliLimits,
    onProgress: (read, total) => {
      const now = Date.now();
      if (!tty || !total || total < 32 << 20 || now - last < 200) return;
      last = now;
      process.stderr.write(`\rreading ${plain(path)}: ${formatBytes(read)} / ${formatBytes(total)} (${Math.floor((read / total) * 100)}%)`);
    },
  });
  if (tty && last) process.stderr.write('\r\x1b[K');
  return s;
}
