import type { Limits as PickleLimits } from '../limits';
import { decodeUtf8, readI32, readU32, smallLong } from './decode';
import type { EntrySink } from './entrySink';
import { LAZY } from './memo';
import { Op } from './opcodes';
import { EntrySlots } from './entrySlots';
import { PrimitiveCache } from './primitiveCache';
import type { ValueStack } from './stack';
import type { PyValue } from './values';

const BAIL = -1;

/**
 * Trace entries, most of a large file, into the sink's slots without the value stack:
 * `EMPTY_DICT [MEMOIZE] MARK (key value [MEMOIZE])* SETITEMS`, keys and values short strings,
 * numbers or memo references to them. The VM's memo, limits and work; else -1, nothing changed.
 */
export class EntryDecoder {
  ops = 0; // the VM's work measure
  private readonly slots: EntrySlots;
  private readonly cache: PrimitiveCache;

  constructor(
    private readonly st: ValueStack,
    private readonly sink: EntrySink | undefined,
    private readonly limits: PickleLimits,
  ) {
    this.cache = new PrimitiveCache(st.memo);
    this.slots = new EntrySlots(sink?.keys ?? []);
  }

  /** The entries from buf[start] (EMPTY_DICT) while they are entries: the position after them, or -1. */
  decode(buf: Uint8Array, start: number, len: number): number {
    if (!this.sink) return BAIL;
    let end = this.one(buf, start, len);
    if (end < 0) return BAIL;
    let ops = this.ops;
    // The VM would count each EMPTY_DICT, then the entry's other opcodes.
    for (let next: number; end < len && buf[end] === Op.EMPTY_DICT && (next = this.one(buf, end, len)) >= 0; end = next)
      ops += 1 + this.ops;
    this.ops = ops;
    return end;
  }

  private one(buf: Uint8Array, start: number, len: number): number {
    const { cache, slots } = this;
    const { puts, keys } = slots;
    const base = this.st.memo.count;
    slots.clear();
    let p = start + 1;
    let ops = 1;
    let n = 0; // keys and values read
    let m = 0; // MEMOIZEs seen
    let marked = false;
    let own = false; // a MEMOIZE of the entry itself, before its MARK
    let slot = keys.drop;
    let key = '';
    // 9 bytes buffered (the longest opcode but a string), else the VM waits for input.
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
        // Before MARK: the entry itself (once); after it: the key or value just read.
        if (marked ? n === 0 : own) return BAIL;
        if (!marked) own = true;
        puts[m++] = !marked ? null : (n & 1) === 1 ? key : slots.value(slot);
        p++;
        continue;
      }
      if (!marked) {
        if (op !== Op.MARK) return BAIL;
        marked = true;
        p++;
        continue;
      }
      if (op === Op.SETITEMS) {
        if ((n & 1) !== 0 || !slots.accept(this.st, this.sink!, this.limits, n, m, own)) return BAIL;
        this.ops = ops - 1; // the VM counted the EMPTY_DICT
        return p + 1;
      }
      let v: PyValue = null;
      let from = -1; // v's memo index
      let x = NaN; // an int opcode's number (never boxed)
      switch (op) {
        case Op.SHORT_BINUNICODE: {
          const k = buf[p + 1]!;
          // Longer ones count in the VM's string budget.
          if (k > 16 || p + 2 + k > len) return BAIL;
          v = decodeUtf8(buf, p + 2, p + 2 + k);
          p += 2 + k;
          break;
        }
        case Op.BINGET:
        case Op.LONG_BINGET: {
          const i = op === Op.BINGET ? buf[p + 1]! : readU32(buf, p + 1);
          p += op === Op.BINGET ? 2 : 5;
          const k = i - base;
          if ((n & 1) === 0 && k < 0 && (slot = keys.cached(i)) >= 0) {
            key = keys.nameAt(i);
            if (n++ === 0 && slot !== 0) return BAIL;
            continue;
          }
          from = k < 0 ? i : -1;
          // k >= 0: this entry's own MEMOIZEs (not the entry itself: the VM says why).
          v = k < 0 ? cache.get(i) : k < m && !(k === 0 && own) ? puts[k]! : LAZY;
          if (v === LAZY) return BAIL;
          break;
        }
        case Op.BININT1:
        case Op.BININT2:
          x = op === Op.BININT1 ? buf[p + 1]! : buf[p + 1]! | (buf[p + 2]! << 8);
          p += op === Op.BININT1 ? 2 : 3;
          break;
        case Op.BININT:
          x = readI32(buf, p + 1);
          p += 5;
          break;
        case Op.LONG1: {
          const k = buf[p + 1]!;
          if (k > 8 || k > this.limits.longBytes) return BAIL;
          x = k === 0 ? 0 : smallLong(buf, p + 2, k);
          if (x !== x) return BAIL; // a bigint
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
      if ((n++ & 1) === 0) {
        // A key: a string, the sink's first key first.
        if (typeof v !== 'string') return BAIL;
        slot = keys.of(v, from);
        if (n === 1 && slot !== 0) return BAIL;
        key = v;
      } else slots.put(slot, x === x ? x : v);
    }
  }
}
