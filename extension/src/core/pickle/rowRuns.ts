import type { PyValue } from './values';

/** A list's items: first, first + 1, … first + count - 1. */
export interface Run {
  first: number;
  count: number;
}

/** A non-negative int32 that a run can start from and give back exactly (-0 could not be). */
const startsRun = (v: PyValue): v is number => typeof v === 'number' && (v | 0) === v && v >= 0 && !Object.is(v, -0);

/**
 * Lists of consecutive integers (a trace's entries, each replaced by its row id) kept as (first,
 * count) while the VM builds them: at 10M events their arrays were 80 MB of heap, grown by copies,
 * and the young generation grew with them. Lossless: `fill` gives a list its items in place.
 * The VM fills a run the moment anything else could read it (a second reference through the memo,
 * a parent that is not a list, which a hook may read, an item out of sequence), so at the end each
 * run left has one parent, a list, or is the result: whoever handed these to the VM takes the runs
 * it reads (`take`), which fills all the others, before reading anything else.
 */
export class RowRuns {
  private readonly runs = new Map<PyValue[], Run>();
  // The list appended to last, and its run: APPENDS come 1,000 items at a time.
  private last: PyValue[] | undefined;
  private lastRun: Run | undefined;

  /** The run an empty list stands for, if any. */
  private of(list: PyValue[]): Run | undefined {
    if (list === this.last) return this.lastRun;
    return list.length === 0 && this.runs.size !== 0 ? this.runs.get(list) : undefined;
  }

  /** How many items the list holds, its run's included. */
  lengthOf(list: PyValue[]): number {
    return this.of(list)?.count ?? list.length;
  }

  /**
   * Takes `v` as the list's next item if it goes on its run, or starts one in an empty list; else
   * the list gets its run's items (if it had one) and the caller appends `v`: false.
   */
  add(list: PyValue[], v: PyValue): boolean {
    let r = this.of(list);
    if (r) {
      if (v === r.first + r.count) {
        r.count++;
        return true;
      }
      this.fill(list);
      return false;
    }
    if (list.length !== 0 || !startsRun(v)) return false;
    this.runs.set(list, (r = { first: v, count: 1 }));
    this.last = list;
    this.lastRun = r;
    return true;
  }

  /** Gives a run's list its items (nothing for any other value). */
  fill(v: PyValue | undefined): void {
    if (!Array.isArray(v) || v.length !== 0 || this.runs.size === 0) return;
    const r = this.runs.get(v);
    if (!r) return;
    this.forget(v);
    for (let i = 0; i < r.count; i++) v.push(r.first + i);
  }

  /**
   * The run of each list in `items` that is one, taken out (the caller reads those from the runs),
   * unless `items` is also reachable as one of `others`; then every other run is filled.
   */
  take(items: PyValue | undefined, others: readonly (PyValue | undefined)[]): (Run | undefined)[] {
    const taken =
      Array.isArray(items) && !others.includes(items)
        ? items.map((v) => {
            const r = Array.isArray(v) ? this.of(v) : undefined;
            if (r) this.forget(v as PyValue[]);
            return r;
          })
        : [];
    for (const list of [...this.runs.keys()]) this.fill(list);
    return taken;
  }

  private forget(list: PyValue[]): void {
    this.runs.delete(list);
    if (list === this.last) this.last = this.lastRun = undefined;
  }
}
