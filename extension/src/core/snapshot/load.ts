import { stat } from 'node:fs/promises';
import { readPickleFile } from '../pickle/file';
import { abortable } from '../safeFile';
import { limitError, resolveLimits } from '../limits';
import { parsePickle, readPickleStream } from '../pickle/read';
import type { ReadOptions } from '../pickle/read';
import type { Snapshot } from './model';
import { normalize, SnapshotBuilder } from './normalize';
import { partialSnapshot } from './partial';

export type LoadOptions = Omit<ReadOptions, 'hooks'> & {
  /** After each chunk: the trace read so far as a snapshot (partial.ts; made only when called), bytes read and total, entries read. */
  onRows?: (sofar: () => Snapshot, read: number, total: number | undefined, events: number) => void;
};

/** onProgress, and onRows given the builder: both after each chunk. */
function chunkHook(b: SnapshotBuilder, opts: LoadOptions): ReadOptions['onProgress'] {
  const { onProgress, onRows } = opts;
  if (!onRows) return onProgress;
  return (read, total) => {
    onProgress?.(read, total);
    onRows(() => partialSnapshot(b, read), read, total, b.rows.length);
  };
}

/** Loads a `_dump_snapshot` pickle (or a gzip of one) from disk. Errors are SnapshotErrors. */
export async function loadSnapshotFile(path: string, opts: LoadOptions = {}): Promise<Snapshot> {
  // Cancellable like the open that follows: on a hung file system the stat waits too.
  const size = await abortable(
    stat(path).then(
      (st) => st.size,
      () => 0, // readPickleFile reports the error
    ),
    opts.signal,
  );
  const limits = resolveLimits(opts.limits);
  if (size > limits.fileBytes) throw limitError('fileBytes', `the file holds ${size} bytes, more than ${limits.fileBytes}`);
  const b = new SnapshotBuilder(size, limits.traceEntries);
  // inputBytes: the work budget is per byte of the file as stored (gzip bombs stop early).
  const r = await readPickleFile(path, { ...opts, limits, inputBytes: size, hooks: b.hooks(), onProgress: chunkHook(b, opts) });
  return normalize(r.value, b, r);
}

export async function loadSnapshotStream(
  chunks: AsyncIterable<Uint8Array>,
  opts: LoadOptions & { total?: number } = {},
): Promise<Snapshot> {
  const limits = resolveLimits(opts.limits);
  const b = new SnapshotBuilder(0, limits.traceEntries);
  const r = await readPickleStream(chunks, { ...opts, limits, hooks: b.hooks(), onProgress: chunkHook(b, opts) });
  return normalize(r.value, b, r);
}

export function parseSnapshot(bytes: Uint8Array, opts: Pick<LoadOptions, 'limits'> = {}): Snapshot {
  const limits = resolveLimits(opts.limits);
  const b = new SnapshotBuilder(bytes.length, limits.traceEntries);
  const r = parsePickle(bytes, { limits, hooks: b.hooks() });
  return normalize(r.value, b, r);
}
