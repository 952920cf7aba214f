import type { FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { SnapshotError } from '../errors';
import { ioError, openRegular } from '../safeFile';
import { resolveLimits } from '../limits';
import { PickleMachine } from './machine';
import { checkCancelled, readPickleStream } from './read';
import type { PickleResult, ReadOptions } from './read';

const CHUNK = 1 << 20;

/**
 * Reads a snapshot pickle from disk in 1 MiB chunks straight into the VM's buffer, so memory stays
 * near the size of the decoded result. gzip-compressed files are decompressed on the fly. Only a
 * regular file is read (a FIFO or a device is refused), and the open itself is cancellable.
 */
export async function readPickleFile(path: string, opts: ReadOptions = {}): Promise<PickleResult> {
  const opened = await openRegular(path, opts.signal);
  const total = opened.size;
  let fh: FileHandle | undefined = opened.fh;
  try {
    const head = new Uint8Array(2);
    await fh.read(head, 0, 2, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) {
      // The stream owns the descriptor from here (the same file, never reopened by name).
      const gz = fh;
      fh = undefined;
      return await readGzip(gz, path, total, opts);
    }
    const m = new PickleMachine(resolveLimits(opts.limits), opts.hooks);
    let read = 0;
    for (;;) {
      checkCancelled(opts.signal);
      const region = m.reserve(Math.max(CHUNK, m.wanted - m.pending));
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(region, 0, region.length, read));
      } catch (e) {
        throw ioError(path, e);
      }
      if (n === 0) {
        if (read === 0) throw new SnapshotError('not-pickle', `${path} is empty`, 0);
        throw new SnapshotError(
          'truncated',
          `the pickle ends after ${read} bytes, before its STOP opcode: the dump was interrupted or the copy is incomplete`,
          m.offset,
        );
      }
      read += n;
      m.commit(n);
      const done = m.run();
      opts.onProgress?.(read, total);
      if (done) return { value: m.result, protocol: m.protocol, bytes: m.offset };
    }
  } finally {
    await fh?.close();
  }
}

async function readGzip(fh: FileHandle, path: string, total: number, opts: ReadOptions): Promise<PickleResult> {
  const file = fh.createReadStream({ highWaterMark: CHUNK, start: 0 });
  const gunzip = createGunzip();
  let compressed = 0;
  file.on('data', (c) => (compressed += c.length));
  file.on('error', (e) => gunzip.destroy(e));
  try {
    return await readPickleStream(file.pipe(gunzip), {
      ...opts,
      onProgress: opts.onProgress && (() => opts.onProgress!(compressed, total)),
    });
  } catch (e) {
    if (e instanceof SnapshotError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'Z_BUF_ERROR' || err.code === 'Z_DATA_ERROR') {
      throw new SnapshotError('truncated', `the gzip stream of ${path} is damaged or incomplete (${err.message})`);
    }
    throw ioError(path, e);
  } finally {
    file.destroy();
    gunzip.destroy();
  }
}
