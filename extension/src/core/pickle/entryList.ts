import { readU32 } from './decode';
import { Op } from './opcodes';

/** The frames list an entry read: its items' memo indices, how it was written, its MEMOIZE's place among the entry's (-1 none, -2 no list), its depth. */
export class ListRead {
  readonly items: number[] = []; // items[0..count): reused, since setting an array's length is slow
  count = 0;
  memo = false;
  mark = false;
  ops = 0;
  put = -2;
  depth = 0;
  /** Of the items' indices, for ListCache. */
  hash = 0;
}

/**
 * A trace entry's frames list as PyTorch writes it once its frames are known: references to frame
 * dicts already in the memo, `EMPTY_LIST [MEMOIZE] [MARK (BINGET)* APPENDS | BINGET APPEND]`
 * (most entries of a real capture; repeated ones read the list itself from the memo). The item
 * indices go to s.items, its opcodes to s.ops; the position after it, or -1 for anything else
 * (a new frame dict, a FRAME opcode, a reference to this entry's own memo entries).
 */
export function readList(buf: Uint8Array, p: number, len: number, base: number, s: ListRead): number {
  const items = s.items;
  let k = 0;
  let h = 0x811c9dc5;
  let q = p + 1;
  let ops = 1;
  s.memo = q + 9 <= len && buf[q] === Op.MEMOIZE;
  if (s.memo) {
    q++;
    ops++;
  }
  if (q + 9 > len) return -1;
  s.mark = buf[q] === Op.MARK;
  if (s.mark) {
    q++;
    ops++;
  }
  for (;;) {
    if (q + 9 > len) return -1;
    const op = buf[q]!;
    if (op !== Op.BINGET && op !== Op.LONG_BINGET) break;
    const next = q + (op === Op.BINGET ? 2 : 5);
    // Without MARK only `item APPEND` is an item: else the list was empty and this is the next key.
    if (!s.mark && buf[next] !== Op.APPEND) break;
    const i = op === Op.BINGET ? buf[q + 1]! : readU32(buf, q + 1);
    if (i >= base) return -1;
    items[k++] = i;
    h = Math.imul(h ^ i, 0x01000193);
    q = next;
    ops++;
    if (!s.mark) {
      q++;
      ops++;
      break;
    }
  }
  if (s.mark) {
    if (buf[q] !== Op.APPENDS) return -1;
    q++;
    ops++;
  }
  s.ops = ops;
  s.count = k;
  s.hash = (h ^ (h >>> 15)) >>> 0;
  return q;
}
