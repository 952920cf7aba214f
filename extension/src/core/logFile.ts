import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from './safeFile';

/**
 * Whether a file is a snapshot rather than text: a pickle starts with the PROTO opcode (0x80), a
 * gzip'd one with 1f 8b. Reads two bytes; a file that cannot be read counts as a snapshot, so the
 * snapshot loader reports why.
 */
export function isSnapshotFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openRegularSync(path).fd; // never blocks on a FIFO; a device or folder is refused
    const b = Buffer.alloc(2);
    const n = readSync(fd, b, 0, 2, 0);
    return n >= 1 && (b[0] === 0x80 || (n === 2 && b[0] === 0x1f && b[1] === 0x8b));
  } catch {
    return true;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A log's last LOG_BYTES at most, to search for OOM messages (the OOM is at the end). */
export const LOG_BYTES = 64 * 2 ** 20;

export function readLogTail(path: string): string {
  const { fd, size } = openRegularSync(path);
  try {
    const n = Math.min(size, LOG_BYTES);
    const b = Buffer.alloc(n);
    const got = readSync(fd, b, 0, n, size - n);
    return b.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
