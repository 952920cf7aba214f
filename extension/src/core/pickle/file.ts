import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { SnapshotError } from '../errors';
import { resolveLimits } from './limits';
import { PickleMachine } from './machine';
import { checkCancelled, readPickleStream } from './read';
import type { PickleResult, ReadOptions } from './read';

const CHUNK = 1 << 20;

function ioError(path: string, e: unknown): SnapshotError {
  const err = e as NodeJS.ErrnoException;
  const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'it is a directory' : err.message;
  return new SnapshotError('io', `cannot read ${path}: ${why}`);
}

/**
 * Reads a snapshot pickle from disk in 1 MiB chunks straight into the VM's buffer, so memory stays
 * near the size of the decoded result. gzip-compressed files are decompressed on the fly.
 */
export async function readPickleFile(path: string, opts: ReadOptions = {}): Promise<PickleResult> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw ioError(path, e);
  }
  try {
    const total = (await fh.stat()).size;
    const head = new Uint8Array(2);
    await fh.read(head, 0, 2, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) {
      await fh.close();
      fh = undefined;
      return await readGzip(path, total, opts);
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

async function readGzip(path: string, total: number, opts: ReadOptions): Promise<PickleResult> {
  const file = createReadStream(path, { highWaterMark: CHUNK });
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
