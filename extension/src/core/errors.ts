/**
 * Every failure the engine reports is a SnapshotError with a code the callers can switch on and a
 * message written for the person who picked the file, not for us.
 */
export type SnapshotErrorCode =
  | 'io' // the file could not be read
  | 'not-pickle' // the bytes are not a pickle at all
  | 'truncated' // the pickle ends before its STOP opcode
  | 'corrupt' // an invalid opcode, argument or stack state
  | 'unsupported' // valid pickle, but a feature snapshots never use (protocol 0/1, PERSID, EXT…)
  | 'limit' // a hard limit (depth, size, total work) was hit: possibly a hostile file
  | 'wrong-shape' // a valid pickle that is not a PyTorch memory snapshot
  | 'cancelled'; // the caller cancelled the load

export class SnapshotError extends Error {
  readonly code: SnapshotErrorCode;
  /** Byte offset in the input where the problem was found, when known. */
  readonly offset: number | undefined;

  constructor(code: SnapshotErrorCode, message: string, offset?: number) {
    super(message);
    this.name = 'SnapshotError';
    this.code = code;
    this.offset = offset;
  }
}

export function isSnapshotError(e: unknown): e is SnapshotError {
  return e instanceof SnapshotError;
}
