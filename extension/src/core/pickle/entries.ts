import type { Limits as PickleLimits } from '../limits';
import { decodeLong, decodeUtf8, readI32, readU32 } from './decode';
import { LAZY } from './memo';
import { Op } from './opcodes';
import { PrimitiveCache } from './primitiveCache';
import type { SealHooks, ValueStack } from './stack';
import { Kind } from './stack';
import type { PyValue } from './values';

const BAIL = -1;

/**
 * Trace entries (most of a large file) from the bytes to the freshDict hook without the value
 * stack: `EMPTY_DICT [MEMOIZE] MARK (key value [MEMOIZE])* SETITEMS`, 'action' first, the values
 * short strings, numbers or memo references to them (a frames list already a stack id). Same memo
 * entries, limits and work as the VM; anything else returns -1 having changed nothing.
 */
export class EntryDecoder {
  ops = 0; // opcodes of the last entry (the VM's work measure)
  private readonly vals: PyValue[] = []; // keys and values, alternating
  private readonly puts: PyValue[] = []; // its MEMOIZEs, stored once accepted
  private readonly cache: PrimitiveCache;

  constructor(
    private readonly st: ValueStack,
    private readonly fresh: SealHooks['freshDict'],
    private readonly limits: PickleLimits,
  ) {
    this.cache = new PrimitiveCache(st.memo);
  }

  /** The entry at buf[start] (EMPTY_DICT): the position after it, or -1. */
  decode(buf: Uint8Array, start: number, len: number): number {
    if (!this.fresh) return BAIL;
    const memo = this.st.memo;
    const vals = this.vals;
    const puts = this.puts;
    let p = start + 1;
    let ops = 1;
    let n = 0; // values decoded
    let m = 0; // MEMOIZEs seen
    let marked = false;
    let own = false; // a MEMOIZE of the entry itself, before its MARK
    let last: PyValue = null;
    // 9 bytes ahead buffered (the longest opcode but a string), else the VM waits for input.
    for (;;) {
      if (p + 9 > len) return BAIL;
      const op = buf[p]!;
      if (op === Op.FRAME) {
        p += 9;
        ops += 9;
        continue;
      }
      ops++;
      if (op === Op.MEMOIZE) {
        // Before MARK: the entry itself (once); after it: the value just read (the VM refuses none).
        if (marked ? n === 0 : own) return BAIL;
        if (!marked) own = true;
        puts[m++] = marked ? last : null;
        p++;
        continue;
      }
      if (!marked) {
        if (op !== Op.MARK) return BAIL;
        marked = true;
        p++;
        continue;
      }
      let v: PyValue;
      switch (op) {
        case Op.SETITEMS:
          return this.accept(p + 1, n, m, own, ops, memo.count);
        case Op.SHORT_BINUNICODE: {
          const k = buf[p + 1]!;
          // Longer ones count towards the VM's string budget.
          if (k > 16 || p + 2 + k > len) return BAIL;
          v = decodeUtf8(buf, p + 2, p + 2 + k);
          p += 2 + k;
          break;
        }
        case Op.BINGET:
        case Op.LONG_BINGET: {
          const i = op === Op.BINGET ? buf[p + 1]! : readU32(buf, p + 1);
          p += op === Op.BINGET ? 2 : 5;
          // One of this entry's own MEMOIZEs (the entry itself is no value: the VM says why).
          const k = i - memo.count;
          v = k < 0 ? this.cache.get(i) : k < m && !(k === 0 && own) ? puts[k]! : LAZY;
          if (v === LAZY) return BAIL;
          break;
        }
        case Op.BININT1:
          v = buf[p + 1]!;
          p += 2;
          break;
        case Op.BININT2:
          v = buf[p + 1]! | (buf[p + 2]! << 8);
          p += 3;
          break;
        case Op.BININT:
          v = readI32(buf, p + 1);
          p += 5;
          break;
        case Op.LONG1: {
          const k = buf[p + 1]!;
          if (k > 8 || k > this.limits.longBytes) return BAIL;
          v = decodeLong(buf, p + 2, k);
          if (typeof v !== 'number') return BAIL;
          p += 2 + k;
          break;
        }
        case Op.NONE:
          v = null;
          p++;
          break;
        default:
          return BAIL;
      }
      // Keys are strings, 'action' first (as PyTorch writes them).
      if ((n & 1) === 0 && (typeof v !== 'string' || (n === 0 && v !== 'action'))) return BAIL;
      vals[n++] = v;
      last = v;
    }
  }

  /** The hook's row, then the memo entries and counts as the VM leaves them. */
  private accept(end: number, n: number, m: number, own: boolean, ops: number, first: number): number {
    const memo = this.st.memo;
    if ((n & 1) !== 0 || this.st.marks.length >= this.limits.marks) return BAIL;
    if (first + m > this.limits.memoEntries || memo.cost + (1 << 14) > this.limits.memoEntries) return BAIL;
    for (let i = 0; i < m; i++) if (memo.has(first + i)) return BAIL;
    const row = this.fresh!(this.vals, 0, n);
    if (row === undefined) return BAIL;
    for (let i = 0; i < m; i++) {
      if (i === 0 && own) memo.set(first, row, Kind.Primitive, true, 1);
      else memo.set(first + i, this.puts[i]!, Kind.Primitive, false, 0);
    }
    this.st.push(row, Kind.Primitive, 0);
    this.st.spend(1.5 * n);
    this.ops = ops - 1; // the VM counted the EMPTY_DICT
    return end;
  }
}
