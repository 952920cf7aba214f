import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { sep } from 'node:path';
import { SnapshotError } from './errors';

/**
 * Opening files a stranger made (a snapshot, a copied run folder). O_NONBLOCK keeps a FIFO from
 * blocking the open itself (a read-only open of a FIFO otherwise waits for a writer, forever, and
 * holds one of libuv's four pool threads); fstat on the open descriptor then refuses anything but
 * a regular file, so /dev/zero, a FIFO, a socket or a directory never reach a reader.
 */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a non-regular file is, in words. */
function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

export function ioError(path: string, e: unknown): SnapshotError {
  if (e instanceof SnapshotError) return e;
  const err = e as NodeJS.ErrnoException;
  const why =
    err.code === 'ENOENT'
      ? 'no such file'
      : err.code === 'EACCES'
        ? 'permission denied'
        : err.code === 'EISDIR'
          ? 'it is a directory'
          : err.code === 'ELOOP'
            ? 'too many symbolic links'
            : String(err.message ?? err);
  return new SnapshotError('io', `cannot read ${path}: ${why}`);
}

function notRegular(path: string, st: Stats): SnapshotError {
  return new SnapshotError('io', `cannot read ${path}: it is ${kindOf(st)}, not a regular file`);
}

const cancelled = () => new SnapshotError('cancelled', 'loading was cancelled');

/**
 * Waits for a file-system call unless the signal aborts first: a call on a hung file system (or
 * queued behind blocked ones in libuv's pool) must not hold a cancelled load. `late` disposes of a
 * result that arrives after the abort.
 */
export async function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined, late: (v: T) => unknown = () => undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.then(late, () => undefined);
    throw cancelled();
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([p, aborted]);
  } catch (e) {
    if (signal.aborted) p.then(late, () => undefined);
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/**
 * Opens a regular file for reading; cancellable while the open is pending: the promise rejects at
 * once and a descriptor that arrives later is closed.
 */
export async function openRegular(path: string, signal?: AbortSignal): Promise<{ fh: FileHandle; size: number }> {
  let fh: FileHandle;
  try {
    fh = await abortable(open(path, FLAGS), signal, (h) => h.close().catch(() => undefined));
  } catch (e) {
    throw ioError(path, e);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notRegular(path, st);
    if (signal?.aborted) throw cancelled();
    return { fh, size: st.size };
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw ioError(path, e);
  }
}

/** The synchronous open for small files: a descriptor on a regular file, or a typed error. */
export function openRegularSync(path: string): { fd: number; size: number; mtimeMs: number } {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (e) {
    throw ioError(path, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(path, st);
    return { fd, size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    closeSync(fd);
    throw ioError(path, e);
  }
}

/** Throws unless `path`, every link followed, lies inside the folder `root` (itself resolved). */
export function assertInside(path: string, root: string): void {
  let real: string;
  let top: string;
  try {
    real = realpathSync.native(path);
    top = realpathSync.native(root);
  } catch (e) {
    throw ioError(path, e);
  }
  if (!real.startsWith(top.endsWith(sep) ? top : top + sep)) {
    throw new SnapshotError('io', `cannot read ${path}: it is a link to ${real}, outside the run folder ${root}`);
  }
}

export interface SideFileLimits {
  /** The folder the file must lie in (no link may lead out of it). */
  root: string;
  /** Bytes read at most: the rest of a longer file is ignored. */
  maxBytes: number;
}

/** A small side file (meta.json, launch.json) as text; larger than maxBytes is refused. */
export function readSideText(path: string, lim: SideFileLimits): string {
  assertInside(path, lim.root);
  const { fd, size } = openRegularSync(path);
  try {
    if (size > lim.maxBytes)
      throw new SnapshotError('limit', `cannot read ${path}: ${size} bytes, over the ${lim.maxBytes}-byte limit for this file`);
    const buf = Buffer.allocUnsafe(size);
    let n = 0;
    for (let r = 1; n < size && r > 0; n += r) r = readSync(fd, buf, n, size - n, n);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

const CHUNK = 1 << 20;

/**
 * The lines of a JSON-lines side file, read in 1 MiB chunks so that memory holds one line at a
 * time: lines over `maxLine` bytes are skipped, and reading stops after `maxBytes`.
 */
export function* readSideLines(path: string, lim: SideFileLimits & { maxLine: number }): Generator<string> {
  assertInside(path, lim.root);
  const { fd } = openRegularSync(path);
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer[] = [];
    let carried = 0;
    let skipping = false;
    let eof = false;
    for (let total = 0; total < lim.maxBytes; ) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, lim.maxBytes - total), null);
      if (n === 0) {
        eof = true;
        break;
      }
      total += n;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl >= 0 && nl < n; nl = buf.indexOf(10, start)) {
        if (!skipping && carried + nl - start <= lim.maxLine) {
          yield carried ? Buffer.concat([...carry, buf.subarray(start, nl)]).toString('utf8') : buf.toString('utf8', start, nl);
        }
        carry = [];
        carried = 0;
        skipping = false;
        start = nl + 1;
      }
      if (start < n && !skipping) {
        if (carried + n - start > lim.maxLine) {
          skipping = true; // a huge line: drop it up to its newline
          carry = [];
          carried = 0;
        } else {
          carry.push(Buffer.from(buf.subarray(start, n)));
          carried += n - start;
        }
      }
    }
    // The last line without a newline, unless the cap cut it.
    if (eof && carried && !skipping) yield Buffer.concat(carry).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The JSON objects of a JSON-lines side file, one a line (as readSideLines reads them): torn,
 * malformed and non-object lines are passed over. Opening errors propagate, as there.
 */
export function* readSideRecords(path: string, lim: SideFileLimits & { maxLine: number }): Generator<Record<string, unknown>> {
  for (const line of readSideLines(path, lim)) {
    const o = parseObject(line);
    if (o) yield o;
  }
}

/** One line's JSON object, or undefined (a torn last line, a foreign one). */
export function parseObject(line: string): Record<string, unknown> | undefined {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
}

/** The complete lines among a side file's last `bytes` bytes (the first, likely cut, is dropped). */
export function readSideTail(path: string, lim: SideFileLimits, bytes: number): string[] {
  assertInside(path, lim.root);
  const { fd, size } = openRegularSync(path);
  try {
    const n = Math.min(size, bytes, lim.maxBytes);
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, size - n);
    const lines = buf.toString('utf8', 0, got).split('\n');
    return (n < size ? lines.slice(1) : lines).filter(Boolean);
  } finally {
    closeSync(fd);
  }
}

/** Caps for a run folder's side files: generous for a day-long run, small next to the editor's heap. */
export const SIDE_LIMITS = {
  json: 4 << 20,
  samples: 256 << 20,
  events: 64 << 20,
  gpuAtOom: 64 << 20,
  line: 1 << 20,
} as const;
