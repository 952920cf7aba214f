import type { Limits as PickleLimits } from '../limits';
import { readEntry } from './entryRead';
import type { EntrySink } from './entrySink';
import { EntrySlots } from './entrySlots';
import { Op } from './opcodes';
import { PrimitiveCache } from './primitiveCache';
import type { ValueStack } from './stack';

const BAIL = -1;

/**
 * Trace entries, most of a large file, into the sink's slots without the value stack:
 * `EMPTY_DICT [MEMOIZE] MARK (key value [MEMOIZE])* SETITEMS`, keys and values short strings,
 * numbers or memo references to them. The VM's memo, limits and work; else -1, nothing changed.
 */
export class EntryDecoder {
  ops = 0; // the VM's work measure
  readonly slots: EntrySlots;
  readonly cache: PrimitiveCache;

  constructor(
    readonly st: ValueStack,
    readonly sink: EntrySink | undefined,
    readonly limits: PickleLimits,
  ) {
    this.cache = new PrimitiveCache(st.memo);
    this.slots = new EntrySlots(sink?.keys ?? [], sink?.listSlot);
  }

  /** The entries from buf[start] (EMPTY_DICT) while they are entries: the position after them, or -1. */
  decode(buf: Uint8Array, start: number, len: number): number {
    if (!this.sink) return BAIL;
    let end = readEntry(this, buf, start, len);
    if (end < 0) return BAIL;
    let ops = this.ops;
    // The VM would count each EMPTY_DICT, then the entry's other opcodes.
    for (let next: number; end < len && buf[end] === Op.EMPTY_DICT && (next = readEntry(this, buf, end, len)) >= 0; end = next)
      ops += 1 + this.ops;
    this.ops = ops;
    return end;
  }
}
