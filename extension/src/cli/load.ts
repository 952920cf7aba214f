import { loadSnapshotFile } from '../core/snapshot/load';
import type { Snapshot } from '../core/snapshot/model';
import { formatBytes } from '../core/format';

/** Loads a snapshot for a command, with a progress line on stderr when it is a terminal. */
export async function loadForCli(path: string): Promise<Snapshot> {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const s = await loadSnapshotFile(path, {
    onProgress: (read, total) => {
      const now = Date.now();
      if (!tty || !total || total < 32 << 20 || now - last < 200) return;
      last = now;
      process.stderr.write(`\rreading ${path}: ${formatBytes(read)} / ${formatBytes(total)} (${Math.floor((read / total) * 100)}%)`);
    },
  });
  if (tty && last) process.stderr.write('\r\x1b[K');
  return s;
}
