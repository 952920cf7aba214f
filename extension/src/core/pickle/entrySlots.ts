import type { Limits as PickleLimits } from '../limits';
import { Got } from './entrySink';
import type { EntrySink } from './entrySink';
import { KeySlots } from './keySlots';
import type { ValueStack } from './stack';
import { Kind } from './stack';
import type { PyValue } from './values';

/** One trace entry as the entry decoder reads it (entries.ts), and its handing over to the sink. */
export class EntrySlots {
  readonly keys: KeySlots;
  readonly got: Uint8Array;
  readonly nums: Float64Array;
  readonly refs: PyValue[];
  /** The entry's MEMOIZEs, stored once it is accepted. */
  readonly puts: PyValue[] = [];

  constructor(keys: readonly string[]) {
    this.keys = new KeySlots(keys);
    // One more slot for the values of keys the sink does not read.
    const n = this.keys.drop + 1;
    this.got = new Uint8Array(n);
    this.nums = new Float64Array(n);
    this.refs = new Array<PyValue>(n).fill(null);
  }

  /** Before an entry: every slot empty. */
  clear(): void {
    for (let i = 0; i < this.got.length; i++) this.got[i] = Got.Absent;
  }

  /** A value read, numbers unboxed. */
  put(slot: number, v: PyValue): void {
    if (typeof v === 'number') {
      this.got[slot] = Got.Num;
      this.nums[slot] = v;
    } else {
      this.got[slot] = Got.Ref;
      this.refs[slot] = v;
    }
  }

  /** The value last put in a slot (for a MEMOIZE of it). */
  value(slot: number): PyValue {
    return this.got[slot] === Got.Num ? this.nums[slot]! : this.refs[slot]!;
  }

  /**
   * The sink's row for the entry of n keys and values and m MEMOIZEs (the first its own when `own`),
   * then the memo entries, stack and counts as the VM leaves them; false having changed nothing.
   */
  accept(st: ValueStack, sink: EntrySink, limits: PickleLimits, n: number, m: number, own: boolean): boolean {
    const memo = st.memo;
    const first = memo.count;
    if (st.marks.length >= limits.marks) return false;
    if (first + m > limits.memoEntries || memo.cost + (1 << 14) > limits.memoEntries) return false;
    for (let i = 0; i < m; i++) if (memo.has(first + i)) return false;
    const row = sink.entry(this.got, this.nums, this.refs);
    if (row === undefined) return false;
    for (let i = 0; i < m; i++) {
      if (i === 0 && own) memo.set(first, row, Kind.Primitive, true, 1);
      else memo.set(first + i, this.puts[i]!, Kind.Primitive, false, 0);
    }
    st.push(row, Kind.Primitive, 0);
    st.spend(1.5 * n);
    return true;
  }
}
