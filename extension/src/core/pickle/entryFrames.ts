import type { Limits as PickleLimits } from '../limits';
import type { ListRead } from './entryList';
import type { EntrySink } from './entrySink';
import { LAZY } from './memo';
import type { ValueStack } from './stack';
import { Kind } from './stack';
import type { PyValue } from './values';

/** Whether the VM would make the list at all: its MARK, the list object, its length, the stack's room. */
export function listFits(s: ListRead, st: ValueStack, limits: PickleLimits): boolean {
  if (s.mark && st.marks.length + 1 >= limits.marks) return false;
  if (st.objects + 1 > limits.objects || s.count > limits.containerItems) return false;
  // The VM has the entry's keys and values on its stack too: a few dozen at most, or it would not be here.
  return st.sp + s.count + 64 <= limits.stack;
}

/**
 * The frames list an entry read (entryList.ts) made into the sink's stack id, checked as the VM
 * checks it (listFits first, by the caller): each item a memoized dict that is no trace
 * entry, the depth it makes. Nothing changes but the sink's interning (which
 * the VM's path repeats with the same list). The id, its depth in s.depth; or -1.
 */
export function frameList(s: ListRead, st: ValueStack, sink: EntrySink, limits: PickleLimits): number {
  const memo = st.memo;
  const { items, count } = s;
  const values: PyValue[] = [];
  let depth = 1;
  for (let k = 0; k < count; k++) {
    const i = items[k]!;
    if (!memo.has(i) || memo.kind(i) !== Kind.Dict) return -1;
    const v = memo.get(i);
    // A trace entry in the list would be taken as a row (the listItem hook): the VM's case.
    if (v === LAZY || v === null || typeof v !== 'object' || Array.isArray(v) || 'action' in v) return -1;
    depth = Math.max(depth, memo.depth(i) + 1);
    values.push(v);
  }
  if (depth > limits.depth) return -1;
  const id = sink.list(values);
  s.depth = depth;
  return id ?? -1;
}
