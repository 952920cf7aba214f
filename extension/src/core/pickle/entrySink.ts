import type { PyValue } from './values';

/** What the entry decoder read under a key: nothing, a number (in nums) or another primitive (in refs). */
export const enum Got {
  Absent = 0,
  Num = 1,
  Ref = 2,
  /** A frames list read, its stack id not made yet (entryFrames.ts). */
  List = 3,
}

/**
 * Where the entry decoder puts a trace entry: one slot per key the sink reads, numbers unboxed, so
 * that millions of entries make no dict, no key/value array and no boxed doubles.
 */
export interface EntrySink {
  /** The keys it reads: slot i is keys[i]; an entry must start with keys[0]. Other keys are dropped. */
  readonly keys: readonly string[];
  /** The slot whose list value (memoized frame dicts) becomes `list(items)`, or -1. */
  readonly listSlot: number;
  /** The id for a list of frame dicts, as the dictValue hook gives it; undefined to let the VM read the entry. */
  list(items: PyValue[]): number | undefined;
  /**
   * One entry (`got[i]` says what slot i holds). Its row id, or undefined having changed nothing:
   * the VM then reads the entry as a dict (and the freshDict hook says why it is not a row).
   */
  entry(got: Uint8Array, nums: Float64Array, refs: readonly PyValue[]): number | undefined;
}
