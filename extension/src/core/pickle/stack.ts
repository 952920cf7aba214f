import type { LimitName } from '../limits';
import type { Limits as PickleLimits } from '../limits';
import type { EntrySink } from './entrySink';
import { LAZY, Memo, SPARSE_COST } from './memo';
import type { RowRuns } from './rowRuns';
import { PyInert } from './values';
import type { PyDict, PyValue } from './values';

/**
 * Lets a consumer replace finished containers as they are sealed, so that large uniform data (trace
 * entries, stacks) can go straight into compact columns instead of living on as objects. The
 * replacement also replaces the memo entry, so later references see the same value.
 */
export interface SealHooks {
  /** A dict that has just been appended to a list. Return a replacement, or undefined to keep it. */
  listItem?(item: PyDict): PyValue | undefined;
  /** A list that has just been stored in a dict under `key`. */
  dictValue?(key: string, value: PyValue[]): PyValue | undefined;
  /**
   * The first SETITEMS of a still-empty dict, with its keys and values in vals[from..to) (key,
   * value, key, value…). Returning a value replaces the dict before any property is created: the
   * cheapest path for millions of small uniform dicts. Undefined keeps the dict.
   */
  freshDict?(vals: readonly PyValue[], from: number, to: number): PyValue | undefined;
  /** Trace entries read without the VM (entries.ts), where the reader can. */
  entries?: EntrySink;
  /** Lists of consecutive ints kept as runs (rowRuns.ts); the caller takes or fills them after the read. */
  runs?: RowRuns;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** Kind of the value in a stack slot or memo entry. Containers carry a depth; primitives do not. */
export const enum Kind {
  Primitive = 0,
  List = 1,
  Dict = 2,
  Set = 3,
  Frozen = 4, // tuple, frozenset, inert record: immutable once built
}

const KIND_NAMES = ['value', 'list', 'dict', 'set', 'tuple'];

type Fail = (code: 'corrupt' | 'unsupported', message: string) => never;
type Limit = (name: LimitName, message: string) => never;

/** V8's Map holds at most 2^24 entries; out-of-order memo entries stay well below. */
const MAX_SPARSE = 1 << 23;

/**
 * The pickle VM's value stack, marks and memo, and every operation that builds containers.
 *
 * Safety beyond "no calls": once a container is inserted into another it is sealed, and a sealed
 * container can never be mutated again. That makes cycles impossible, so the result is a DAG whose
 * depth is tracked exactly (per stack slot, and per memo entry for shared references).
 */
export class ValueStack {
  vals: PyValue[] = [];
  private sKind = new Uint8Array(1024);
  private sMemo = new Int32Array(1024);
  private sDepth = new Uint8Array(1024);
  sp = 0;
  marks: number[] = [];
  readonly memo = new Memo();
  private cells = 0;
  /** Containers kept as objects: created, less those a hook replaced by a number. */
  objects = 0;

  constructor(
    private readonly limits: PickleLimits,
    private readonly hooks: SealHooks,
    private readonly fail: Fail,
    private readonly limit: Limit,
  ) {}

  /** MARK. A real snapshot opens one per nesting level; 150 MB of them must not reach V8's array limit. */
  mark(): void {
    if (this.marks.length >= this.limits.marks) this.limit('marks', `the pickle opens more than ${this.limits.marks} MARKs at once`);
    this.marks.push(this.sp);
  }

  /** A container object was created (an empty list, a tuple, a dict made real…). */
  created(): void {
    if (++this.objects > this.limits.objects) {
      this.limit('objects', `the pickle builds more than ${this.limits.objects} lists, dicts and tuples`);
    }
  }

  /** Replaces the value in `slot` (already sealed) everywhere it is referenced from. */
  private replace(slot: number, v: PyValue): PyValue {
    const mi = this.sMemo[slot]!;
    if (mi >= 0) this.memo.replace(mi, v);
    return v;
  }

  /** POP: the top value, or the top mark when no value lies above it. */
  pop(): void {
    if (this.sp > this.markBase()) this.sp--;
    else this.popMark();
  }

  /** STOP: the result, with the stack and memo released. */
  finish(): PyValue {
    this.need(1);
    this.sync(this.sp - 1);
    const v = this.real(--this.sp);
    this.vals.length = 0;
    this.memo.clear();
    return v;
  }

  get memoCount(): number {
    return this.memo.count;
  }

  /** ADDITEMS into the set just below the mark. */
  addItems(): void {
    const from = this.popMark();
    const target = from - 1;
    this.mutable(target, Kind.Set, 'ADDITEMS');
    const set = this.vals[target] as PyValue[];
    let depth = this.depthOf(target);
    for (let i = from; i < this.sp; i++) {
      depth = Math.max(depth, this.adopt(i, set));
      set.push(this.vals[i]!);
    }
    if (set.length > this.limits.containerItems) this.limit('containerItems', `a set grows past ${this.limits.containerItems} items`);
    this.setDepth(target, depth);
    this.spend(this.sp - from);
    this.sp = from;
  }

  /** LIST / DICT: a new container from the items above the mark. */
  buildFromMark(isList: boolean): void {
    const from = this.popMark();
    const fresh: PyValue = isList ? [] : {};
    this.created();
    // Move the items up one slot, put the container under them, then reuse APPENDS/SETITEMS.
    this.push(fresh, isList ? Kind.List : Kind.Dict, 1);
    const top = this.sp - 1;
    this.vals.copyWithin(from + 1, from, top);
    this.sKind.copyWithin(from + 1, from, top);
    this.sMemo.copyWithin(from + 1, from, top);
    this.sDepth.copyWithin(from + 1, from, top);
    this.vals[from] = fresh;
    this.sKind[from] = isList ? Kind.List : Kind.Dict;
    this.sMemo[from] = -1;
    this.sDepth[from] = 1;
    if (isList) this.appendTo(from, from + 1);
    else this.setItems(from, from + 1);
  }

  spend(n: number): void {
    this.cells += n;
    if (this.cells > this.limits.cells) this.limit('cells', `the pickle builds more than ${this.limits.cells} values`);
  }

  private growStack(): void {
    if (this.sp >= this.limits.stack) this.limit('stack', `more than ${this.limits.stack} values on the pickle stack`);
    const cap = this.sKind.length * 2;
    const k = new Uint8Array(cap);
    k.set(this.sKind);
    this.sKind = k;
    const m = new Int32Array(cap);
    m.set(this.sMemo);
    this.sMemo = m;
    const d = new Uint8Array(cap);
    d.set(this.sDepth);
    this.sDepth = d;
  }

  push(v: PyValue, kind: Kind, depth: number): void {
    const sp = this.sp;
    if (sp >= this.sKind.length) this.growStack();
    this.vals[sp] = v;
    this.sKind[sp] = kind;
    this.sMemo[sp] = -1;
    this.sDepth[sp] = depth;
    this.sp = sp + 1;
    this.cells++;
  }

  need(n: number): void {
    if (this.sp - this.markBase() < n) this.fail('corrupt', 'the pickle pops more values than it pushed (stack underflow)');
  }

  markBase(): number {
    return this.marks.length ? this.marks[this.marks.length - 1]! : 0;
  }

  popMark(): number {
    const m = this.marks.pop();
    if (m === undefined) this.fail('corrupt', 'the pickle closes a MARK it never opened');
    return m;
  }

  private depthOf(slot: number): number {
    const mi = this.sMemo[slot]!;
    return mi >= 0 ? this.memo.depth(mi) : this.sDepth[slot]!;
  }

  /** The value in `slot`, with a placeholder dict turned into its real (possibly shared) object. */
  private real(slot: number): PyValue {
    const v = this.vals[slot]!;
    if (v !== LAZY) return v;
    const mi = this.sMemo[slot]!;
    if (mi >= 0) {
      const m = this.memo.get(mi);
      if (m !== LAZY) return (this.vals[slot] = m);
    }
    const o: PyDict = {};
    this.created();
    this.vals[slot] = o;
    if (mi >= 0) this.memo.setValue(mi, o);
    return o;
  }

  /** Accounts for `slot` being inserted into the container in slot `parentSlot`; returns the parent depth it implies. */
  /**
   * A slot pushed by BINGET still names its memo entry; if a hook has since replaced that entry
   * (a trace entry became a row id), the slot takes the replacement and is a primitive now.
   */
  private sync(slot: number): void {
    const mi = this.sMemo[slot]!;
    if (mi < 0 || this.memo.kind(mi) !== Kind.Primitive) return;
    this.vals[slot] = this.memo.get(mi);
    this.sKind[slot] = Kind.Primitive;
    this.sMemo[slot] = -1;
    this.sDepth[slot] = 0;
  }

  /** @param intoList a run (rowRuns.ts) may stay one in a list; any other parent could read it. */
  private adopt(slot: number, parent: PyValue, parentMemo = -1, intoList = false): number {
    this.sync(slot);
    const kind = this.sKind[slot];
    if (kind === Kind.Primitive) return 1;
    if (kind === Kind.List && !intoList) this.hooks.runs?.fill(this.vals[slot]);
    const mi = this.sMemo[slot]!;
    if ((mi >= 0 && mi === parentMemo) || this.real(slot) === parent)
      this.fail('corrupt', 'a container is inserted into itself (recursive pickle)');
    if (mi >= 0) this.memo.seal(mi);
    return this.depthOf(slot) + 1;
  }

  private setDepth(slot: number, depth: number): void {
    if (depth > this.limits.depth) this.limit('depth', `containers nest deeper than ${this.limits.depth} levels`);
    const mi = this.sMemo[slot]!;
    if (mi >= 0) this.memo.setDepth(mi, depth);
    else this.sDepth[slot] = depth;
  }

  /** The container in `slot` is about to change: it must be of `kind` and not yet shared. */
  private mutable(slot: number, kind: Kind, what: string): void {
    if (slot < this.markBase() || slot < 0) this.fail('corrupt', `${what} without a container to apply it to (stack underflow)`);
    this.sync(slot);
    if (this.sKind[slot] !== kind) {
      // pickle.dump writes a dict or list subclass (OrderedDict, defaultdict…) as a call, then its
      // items: valid Python, but never in a snapshot.
      const v = this.vals[slot];
      if (v instanceof PyInert)
        this.fail('unsupported', `${what} on ${v.describe()}: a ${KIND_NAMES[kind]} subclass, which memory snapshots never hold`);
      this.fail('corrupt', `${what} applied to something that is not a ${KIND_NAMES[kind]}`);
    }
    const mi = this.sMemo[slot]!;
    if (mi >= 0 && this.memo.sealed(mi))
      this.fail('corrupt', `${what} changes a container after it was shared (not produced by pickle.dump)`);
  }

  /** Builds a frozen container (tuple, frozenset, inert record) from slots [from, sp). */
  freeze(from: number): { items: PyValue[]; depth: number } {
    const n = this.sp - from;
    if (n > this.limits.containerItems) this.limit('containerItems', `a tuple holds more than ${this.limits.containerItems} items`);
    let depth = 1;
    for (let i = from; i < this.sp; i++) depth = Math.max(depth, this.adopt(i, null));
    const items = this.vals.slice(from, this.sp);
    if (depth > this.limits.depth) this.limit('depth', `containers nest deeper than ${this.limits.depth} levels`);
    this.sp = from;
    this.spend(n);
    return { items, depth };
  }

  appendTo(target: number, from: number): void {
    this.mutable(target, Kind.List, 'APPEND');
    const list = this.vals[target] as PyValue[];
    const n = this.sp - from;
    const runs = this.hooks.runs;
    if ((runs ? runs.lengthOf(list) : list.length) + n > this.limits.containerItems)
      this.limit('containerItems', `a list grows past ${this.limits.containerItems} items`);
    let depth = this.depthOf(target);
    const hook = this.hooks.listItem;
    for (let i = from; i < this.sp; i++) {
      depth = Math.max(depth, this.adopt(i, list, -1, true));
      let v: PyValue = this.vals[i]!;
      if (hook && this.sKind[i] === Kind.Dict) {
        const r = hook(v as PyDict);
        if (r !== undefined) {
          v = this.replace(i, r);
          this.objects--;
        }
      }
      if (!runs?.add(list, v)) list.push(v);
    }
    this.setDepth(target, depth);
    this.sp = from;
    this.spend(n);
  }

  setItems(target: number, from: number): void {
    this.mutable(target, Kind.Dict, 'SETITEMS');
    const placeholder = this.vals[target] as PyDict;
    const targetMemo = this.sMemo[target]!;
    if ((this.sp - from) % 2 !== 0) this.fail('corrupt', 'SETITEMS with an odd number of keys and values');
    let depth = this.depthOf(target);
    const vals = this.vals;
    for (let i = from; i < this.sp; i += 2) {
      const key = this.dictKey(i);
      vals[i] = key;
      depth = Math.max(depth, this.adopt(i + 1, placeholder, targetMemo));
      if (this.hooks.dictValue && this.sKind[i + 1] === Kind.List) {
        const r = this.hooks.dictValue(key, vals[i + 1] as PyValue[]);
        if (r !== undefined) {
          vals[i + 1] = this.replace(i + 1, r);
          this.objects--;
        }
      }
    }
    this.spend((this.sp - from) / 2);
    const fresh =
      this.hooks.freshDict && (placeholder === LAZY || isEmpty(placeholder)) ? this.hooks.freshDict(vals, from, this.sp) : undefined;
    if (fresh !== undefined) {
      if (placeholder !== LAZY) this.objects--;
      vals[target] = this.replace(target, fresh);
      this.sKind[target] = Kind.Primitive;
      this.sDepth[target] = 0;
      this.sMemo[target] = -1;
      this.sp = from;
      return;
    }
    const dict = this.real(target) as PyDict;
    for (let i = from; i < this.sp; i += 2) {
      const key = vals[i] as string;
      const v = vals[i + 1]!;
      if (key === '__proto__') Object.defineProperty(dict, key, { value: v, enumerable: true, writable: true, configurable: true });
      else dict[key] = v;
    }
    this.setDepth(target, depth);
    this.sp = from;
  }

  private dictKey(slot: number): string {
    const k = this.vals[slot];
    if (typeof k === 'string') return k;
    if (typeof k === 'number' || typeof k === 'bigint') return String(k);
    if (typeof k === 'boolean') return k ? 'True' : 'False';
    return this.fail('unsupported', 'a dict key that is not a str or int (snapshots only use str keys)');
  }

  qualname(v: PyValue): string {
    return v instanceof PyInert ? v.qualname : '?';
  }

  memoGet(i: number): void {
    if (!this.memo.has(i)) this.fail('corrupt', `the pickle reads memo entry ${i}, which was never stored`);
    const kind = this.memo.kind(i);
    const v = this.memo.get(i);
    // A second reference to a run could be read as a list: it becomes one.
    if (kind === Kind.List) this.hooks.runs?.fill(v);
    this.push(v, kind, 0);
    this.sMemo[this.sp - 1] = kind === Kind.Primitive ? -1 : i;
  }

  memoPut(i: number): void {
    if (this.sp === 0 || this.sp <= this.markBase()) this.fail('corrupt', 'the pickle memoizes with an empty stack');
    if (i > this.limits.memoEntries) this.limit('memoEntries', `memo index ${i} is beyond ${this.limits.memoEntries}`);
    // pickle.dump numbers memo entries once each; a reused index could retarget live references.
    if (this.memo.has(i)) this.fail('corrupt', `memo entry ${i} is stored twice (not produced by pickle.dump)`);
    const top = this.sp - 1;
    this.sync(top);
    const kind = this.sKind[top]! as Kind;
    if (kind !== Kind.Primitive && this.sMemo[top]! >= 0) this.fail('corrupt', 'the same container is memoized twice');
    this.memo.set(i, this.vals[top]!, kind, kind === Kind.Frozen, this.sDepth[top]!);
    if (kind !== Kind.Primitive) this.sMemo[top] = i;
    if (this.memo.cost > this.limits.memoEntries || this.memo.sparseCount > MAX_SPARSE) {
      this.limit(
        'memoEntries',
        `the pickle memo grows past ${this.limits.memoEntries} entries (entries stored out of order count ${SPARSE_COST} each)`,
      );
    }
  }
}
