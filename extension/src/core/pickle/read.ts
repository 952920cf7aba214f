import { SnapshotError } from '../errors';
import { resolveLimits } from '../limits';
import type { Limits as PickleLimits } from '../limits';
import { PickleMachine } from './machine';
import type { SealHooks } from './stack';
import type { PyValue } from './values';

export interface ReadOptions {
  limits?: Partial<PickleLimits>;
  /** Called after each chunk with bytes consumed so far and the total when known. */
  onProgress?: (read: number, total: number | undefined) => void;
  signal?: AbortSignal;
  hooks?: SealHooks;
  /**
   * Size of the file as stored (compressed, for gzip), when the caller knows it: the work budget is
   * per byte of it, so a small .pickle.gz cannot make the reader run for minutes.
   */
  inputBytes?: number;
}

export interface PickleResult {
  value: PyValue;
  protocol: number;
  /** Input bytes consumed (compressed bytes for gzip input). */
  bytes: number;
}

function truncated(m: PickleMachine, read: number): SnapshotError {
  if (read === 0) return new SnapshotError('not-pickle', 'the file is empty', 0);
  return new SnapshotError(
    'truncated',
    `the pickle ends after ${read} bytes, before its STOP opcode: the dump was interrupted or the copy is incomplete`,
    m.offset,
  );
}

export function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SnapshotError('cancelled', 'loading was cancelled');
}

/** Parses a complete in-memory pickle. */
export function parsePickle(bytes: Uint8Array, opts: Pick<ReadOptions, 'limits' | 'hooks'> = {}): PickleResult {
  const m = new PickleMachine(resolveLimits(opts.limits), opts.hooks, bytes.length);
  m.feed(bytes);
  if (!m.run()) throw truncated(m, bytes.length);
  return { value: m.result, protocol: m.protocol, bytes: m.offset };
}

/** Parses a pickle arriving as chunks (a file stream, a socket, a gunzip stream). */
export async function readPickleStream(
  chunks: AsyncIterable<Uint8Array>,
  opts: ReadOptions & { total?: number } = {},
): Promise<PickleResult> {
  const m = new PickleMachine(resolveLimits(opts.limits), opts.hooks, opts.inputBytes);
  let read = 0;
  for await (const chunk of chunks) {
    checkCancelled(opts.signal);
    read += chunk.length;
    m.feed(chunk);
    if (m.run()) {
      opts.onProgress?.(read, opts.total);
      return { value: m.result, protocol: m.protocol, bytes: m.offset };
    }
    opts.onProgress?.(read, opts.total);
  }
  throw truncated(m, read);
}

export { PickleMachine };
