import { SnapshotError } from '../errors';
import { Op } from './opcodes';

/** The first opcode is not PROTO: says what the bytes look like instead, as a typed error. */
export function notAPickle(buf: Uint8Array, start: number, len: number): never {
  const op = buf[start]!;
  const next = start + 1 < len ? buf[start + 1] : undefined;
  if (op === 0x7b || op === 0x5b) throw new SnapshotError('unsupported', 'this looks like JSON, not a pickle', 0);
  if (op === 0x50 && next === 0x4b) {
    throw new SnapshotError('not-pickle', 'this is a zip archive (a torch.save checkpoint?), not a memory snapshot pickle', 0);
  }
  if (op === 0x1f && next === 0x8b) throw new SnapshotError('not-pickle', 'this is gzip-compressed data, not a pickle', 0);
  if (op === Op.MARK || op === Op.EMPTY_DICT || op === Op.EMPTY_LIST || op === Op.GLOBAL) {
    throw new SnapshotError('unsupported', 'pickle protocol 0/1 is not supported (PyTorch writes protocol 2 or later)', 0);
  }
  throw new SnapshotError('not-pickle', 'this file is not a pickle (it does not start with a pickle protocol header)', 0);
}
