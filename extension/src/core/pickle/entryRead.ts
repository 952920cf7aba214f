import { decodeUtf8, longInto, readI32, readU32 } from './decode';
import type { Limits as PickleLimits } from '../limits';
import type { EntrySink } from './entrySink';
import { Got } from './entrySink';
import type { EntrySlots } from './entrySlots';
import { LAZY } from './memo';
import { Op } from './opcodes';
import type { PrimitiveCache } from './primitiveCache';
import type { ValueStack } from './stack';
import type { PyValue } from './values';

/** What reading an entry uses and leaves (EntryDecoder, entries.ts). */
export interface EntryReader {
  readonly st: ValueStack;
  readonly sink: EntrySink | undefined;
  readonly limits: PickleLimits;
  readonly slots: EntrySlots;
  readonly cache: PrimitiveCache;
  /** The entry's opcodes but its EMPTY_DICT (the VM's work measure). */
  ops: number;
}

const BAIL = -1;

/** One trace entry at buf[start] (EMPTY_DICT) into d's slots and the sink (entries.ts): the position after it, or -1. */
export function readEntry(d: EntryReader, buf: Uint8Array, start: number, len: number): number {
  const { cache, slots } = d;
  const { puts, keys } = slots;
  const base = d.st.memo.count;
  slots.clear();
  let p = start + 1;
  let ops = 1;
  let n = 0; // keys and values read
  let m = 0; // MEMOIZEs seen
  let marked = false;
  let own = false; // a MEMOIZE of the entry itself, before its MARK
  let slot = keys.drop;
  let key = '';
  let keyAt = -1; // a cached key's memo index: its name is looked up only for a MEMOIZE of it
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
      const put = !marked ? null : (n & 1) === 1 ? (keyAt >= 0 ? keys.nameAt(keyAt) : key) : slots.value(slot);
      if (put === LAZY) return BAIL; // the list memoizes itself
      puts[m++] = put;
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
      if ((n & 1) !== 0 || !slots.accept(d.st, d.sink!, d.limits, n, m, own)) return BAIL;
      d.ops = ops - 1; // the VM counted the EMPTY_DICT
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
          keyAt = i;
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
        // A value (no key is a number), read straight into its slot; a bigint goes to the VM.
        if (k > 8 || k > d.limits.longBytes || (n & 1) === 0 || !longInto(buf, p + 2, k, slots.nums, slot)) return BAIL;
        slots.got[slot] = Got.Num;
        n++;
        p += 2 + k;
        continue;
      }
      case Op.EMPTY_LIST:
        // The frames list (entryList.ts); its value, a stack id, is made when the entry is whole.
        if ((n++ & 1) === 0 || (p = slots.readList(buf, p, len, base, m, slot)) < 0) return BAIL;
        ops += slots.list.ops - 1;
        if (slots.list.memo) m++;
        continue;
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
      keyAt = -1;
    } else if (x === x) slots.num(slot, x);
    else slots.put(slot, v);
  }
}
