import { stat } from 'node:fs/promises';
import { readPickleFile } from '../pickle/file';
import { parsePickle, readPickleStream } from '../pickle/read';
import type { ReadOptions } from '../pickle/read';
import type { Snapshot } from './model';
import { normalize, SnapshotBuilder } from './normalize';

export type LoadOptions = Omit<ReadOptions, 'hooks'>;

/** Loads a `_dump_snapshot` pickle (or a gzip of one) from disk. Errors are SnapshotErrors. */
export async function loadSnapshotFile(path: string, opts: LoadOptions = {}): Promise<Snapshot> {
  const size = await stat(path).then(
    (st) => st.size,
    () => 0, // readPickleFile reports the error
  );
  const b = new SnapshotBuilder(size);
  const r = await readPickleFile(path, { ...opts, hooks: b.hooks() });
  return normalize(r.value, b, r);
}

export async function loadSnapshotStream(chunks: AsyncIterable<Uint8Array>, opts: LoadOptions & { total?: number } = {}): Promise<Snapshot> {
  const b = new SnapshotBuilder();
  const r = await readPickleStream(chunks, { ...opts, hooks: b.hooks() });
  return normalize(r.value, b, r);
}

export function parseSnapshot(bytes: Uint8Array, opts: Pick<LoadOptions, 'limits'> = {}): Snapshot {
  const b = new SnapshotBuilder(bytes.length);
  const r = parsePickle(bytes, { limits: opts.limits, hooks: b.hooks() });
  return normalize(r.value, b, r);
}
