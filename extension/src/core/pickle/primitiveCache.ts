import { LAZY } from './memo';
import type { Memo } from './memo';
import type { PyValue } from './values';

const SLOTS = 1024;

/**
 * The memo's primitives as the entry decoder reads them: a trace entry reads the same dozen keys and
 * values by BINGET, millions of times. A primitive entry never changes once stored (the VM stores
 * an index once, and only containers are replaced), so a direct-mapped cache of them is exact.
 */
export class PrimitiveCache {
  private readonly at = new Int32Array(SLOTS).fill(-1);
  private readonly values: PyValue[] = new Array<PyValue>(SLOTS).fill(null);

  constructor(private readonly memo: Memo) {}

  /** Entry i's value if it is a primitive, else LAZY. */
  get(i: number): PyValue {
    const h = i & (SLOTS - 1);
    if (this.at[h] === i) return this.values[h]!;
    const v = this.memo.primitive(i);
    if (v !== LAZY) {
      this.at[h] = i;
      this.values[h] = v;
    }
    return v;
  }
}
