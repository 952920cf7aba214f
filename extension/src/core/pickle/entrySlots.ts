import type { Limits as PickleLimits } from '../limits';
import { frameList, listFits } from './entryFrames';
import { ListRead, readList } from './entryList';
import { Got } from './entrySink';
import { LAZY } from './memo';
import type { EntrySink } from './entrySink';
import { KeySlots } from './keySlots';
import { ListCache } from './listCache';
import type { ValueStack } from './stack';
import { Kind } from './stack';
import type { PyValue } from './values';

/** One trace entry as the entry decoder reads it (entries.ts), and its handing over to the sink. */
export class EntrySlots {
  readonly keys: KeySlots;
  readonly got: Uint8Array;
  private readonly words: Float64Array;
  readonly nums: Float64Array;
  readonly refs: PyValue[];
  /** The entry's MEMOIZEs, stored once it is accepted. */
  readonly puts: PyValue[] = [];
  /** Its frames list (entryList.ts). */
  readonly list = new ListRead();
  /** Frames lists made before (listCache.ts). */
  private readonly lists = new ListCache();

  /** The slot whose list value is a frames list (EntrySink.listSlot). */
  readonly listSlot: number;

  constructor(keys: readonly string[], listSlot = -1) {
    this.keys = new KeySlots(keys);
    this.listSlot = listSlot;
    // One more slot for the values of keys the sink does not read.
    const n = this.keys.drop + 1;
    // Over whole doubles, so that clearing is a store per 8 slots.
    const words = new Float64Array(Math.ceil(n / 8));
    this.got = new Uint8Array(words.buffer, 0, n);
    this.words = words;
    this.nums = new Float64Array(n);
    this.refs = new Array<PyValue>(n).fill(null);
  }

  /** Before an entry: every slot empty. */
  clear(): void {
    // Got.Absent is 0: +0.0 is all zero bits.
    for (let i = 0; i < this.words.length; i++) this.words[i] = 0;
    this.list.put = -2;
  }

  /** The list at buf[p] under the key of `slot`, the entry's m-th MEMOIZE next: the position after it, or -1. */
  readList(buf: Uint8Array, p: number, len: number, base: number, m: number, slot: number): number {
    const l = this.list;
    if (slot !== this.listSlot || l.put !== -2) return -1;
    const q = readList(buf, p, len, base, l);
    if (q < 0) return -1;
    this.got[slot] = Got.List;
    l.put = l.memo ? m : -1;
    if (l.memo) this.puts[m] = LAZY;
    return q;
  }

  /** A number read (unboxed all the way: a double passed as a PyValue is allocated). */
  num(slot: number, x: number): void {
    this.got[slot] = Got.Num;
    this.nums[slot] = x;
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
    const g = this.got[slot];
    return g === Got.Num ? this.nums[slot]! : g === Got.Ref ? this.refs[slot]! : LAZY;
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
    const l = this.list;
    let made = -1; // a list made here, not found in the cache
    if (l.put !== -2) {
      // A later value under the same key (not from pickle.dump) replaced the list: the VM's case.
      if (this.got[this.listSlot] !== Got.List || !listFits(l, st, limits)) return false;
      let id = this.lists.find(l);
      if (id < 0) made = id = frameList(l, st, sink, limits);
      if (id < 0) return false;
      this.got[this.listSlot] = Got.Num;
      this.nums[this.listSlot] = id;
    }
    const row = sink.entry(this.got, this.nums, this.refs);
    if (row === undefined) return false;
    for (let i = 0; i < m; i++) {
      if (i === 0 && own) memo.set(first, row, Kind.Primitive, true, 1);
      else if (i === l.put) memo.set(first + i, this.nums[this.listSlot]!, Kind.Primitive, true, l.depth);
      else memo.set(first + i, this.puts[i]!, Kind.Primitive, false, 0);
    }
    // The list's items are sealed, as the VM seals what it inserts; each costs a push and an append.
    const listed = l.put === -2 ? 0 : l.count;
    if (made >= 0) {
      for (let i = 0; i < listed; i++) memo.seal(l.items[i]!);
      this.lists.add(l, made);
    }
    st.push(row, Kind.Primitive, 0);
    st.spend(1.5 * n + 2 * listed);
    return true;
  }
}
