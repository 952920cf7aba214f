import { SnapshotError } from '../errors';
import { decodeLatin1, decodeLong, decodeUtf8, readI32, readU32, readU64 } from './decode';
import type { PickleLimits } from './limits';
import { Memo } from './memo';
import { Op, unsupportedOpName } from './opcodes';
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
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** Kind of the value in a stack slot or memo entry. Containers carry a depth; primitives do not. */
const enum Kind {
  Primitive = 0,
  List = 1,
  Dict = 2,
  Set = 3,
  Frozen = 4, // tuple, frozenset, inert record: immutable once built
}

const KIND_NAMES = ['value', 'list', 'dict', 'set', 'tuple'];

/**
 * EMPTY_DICT pushes this placeholder; the real object is created at the first SETITEMS, unless
 * the freshDict hook consumes the items first (millions of trace entries never become objects).
 */
const LAZY: PyDict = Object.freeze({}) as PyDict;

const NEED_MORE = -1;

/**
 * A pickle VM that executes opcodes as their bytes arrive and never runs code.
 *
 * Safety beyond "no calls": once a container is inserted into another it is sealed, and a sealed
 * container can never be mutated again. That makes cycles impossible, so the result is a DAG whose
 * depth is tracked exactly (per stack slot, and per memo entry for shared references).
 */
export class PickleMachine {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private len = 0;
  /** Bytes discarded before buf[0], so errors can name absolute offsets. */
  private base = 0;

  private vals: PyValue[] = [];
  private sKind = new Uint8Array(1024);
  private sMemo = new Int32Array(1024);
  private sDepth = new Uint8Array(1024);
  private sp = 0;
  private marks: number[] = [];

  private readonly memo = new Memo();

  private cells = 0;
  private started = false;
  private finished = false;
  private value: PyValue = null;
  protocol = 0;

  constructor(
    private readonly limits: PickleLimits,
    private readonly hooks: SealHooks = {},
  ) {}

  /** Replaces the value in `slot` (already sealed) everywhere it is referenced from. */
  private replace(slot: number, v: PyValue): PyValue {
    const mi = this.sMemo[slot]!;
    if (mi >= 0) this.memo.replace(mi, v);
    return v;
  }

  get done(): boolean {
    return this.finished;
  }

  get result(): PyValue {
    return this.value;
  }

  /** Absolute offset of the next unread byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Room to write at least `min` more bytes; returns the region to fill, then call commit(n). */
  reserve(min: number): Uint8Array {
    this.compact(min);
    return this.buf.subarray(this.len);
  }

  commit(n: number): void {
    this.len += n;
  }

  feed(chunk: Uint8Array): void {
    this.reserve(chunk.length).set(chunk);
    this.commit(chunk.length);
  }

  /** Bytes currently buffered but not executed (a partial opcode). */
  get pending(): number {
    return this.len - this.pos;
  }

  private compact(extra: number): void {
    const keep = this.len - this.pos;
    if (this.pos > 0) {
      this.buf.copyWithin(0, this.pos, this.len);
      this.base += this.pos;
      this.pos = 0;
      this.len = keep;
    }
    if (keep + extra > this.buf.length) {
      let cap = this.buf.length;
      while (cap < keep + extra) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, keep));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
  }

  private fail(code: 'corrupt' | 'unsupported' | 'limit', message: string, at = this.pos): never {
    throw new SnapshotError(code, message, this.base + at);
  }

  private spend(n: number): void {
    this.cells += n;
    if (this.cells > this.limits.maxCells) {
      this.fail('limit', `the pickle builds more than ${this.limits.maxCells} values; refusing to go on (limit maxCells)`);
    }
  }

  private growStack(): void {
    if (this.sp >= this.limits.maxStack) this.fail('limit', `more than ${this.limits.maxStack} values on the pickle stack (limit maxStack)`);
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

  private push(v: PyValue, kind: Kind, depth: number): void {
    const sp = this.sp;
    if (sp >= this.sKind.length) this.growStack();
    this.vals[sp] = v;
    this.sKind[sp] = kind;
    this.sMemo[sp] = -1;
    this.sDepth[sp] = depth;
    this.sp = sp + 1;
    this.cells++;
  }

  private need(n: number): void {
    if (this.sp - this.markBase() < n) this.fail('corrupt', 'the pickle pops more values than it pushed (stack underflow)');
  }

  private markBase(): number {
    return this.marks.length ? this.marks[this.marks.length - 1]! : 0;
  }

  private popMark(): number {
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
    this.vals[slot] = o;
    if (mi >= 0) this.memo.setValue(mi, o);
    return o;
  }

  /** Accounts for `slot` being inserted into the container in slot `parentSlot`; returns the parent depth it implies. */
  private adopt(slot: number, parent: PyValue, parentMemo = -1): number {
    if (this.sKind[slot] === Kind.Primitive) return 1;
    const mi = this.sMemo[slot]!;
    if ((mi >= 0 && mi === parentMemo) || this.real(slot) === parent) this.fail('corrupt', 'a container is inserted into itself (recursive pickle)');
    if (mi >= 0) this.memo.seal(mi);
    return this.depthOf(slot) + 1;
  }

  private setDepth(slot: number, depth: number): void {
    if (depth > this.limits.maxDepth) this.fail('limit', `containers nest deeper than ${this.limits.maxDepth} levels (limit maxDepth)`);
    const mi = this.sMemo[slot]!;
    if (mi >= 0) this.memo.setDepth(mi, depth);
    else this.sDepth[slot] = depth;
  }

  /** The container in `slot` is about to change: it must be of `kind` and not yet shared. */
  private mutable(slot: number, kind: Kind, what: string): void {
    if (slot < this.markBase() || slot < 0) this.fail('corrupt', `${what} without a container to apply it to (stack underflow)`);
    if (this.sKind[slot] !== kind) this.fail('corrupt', `${what} applied to something that is not a ${KIND_NAMES[kind]}`);
    const mi = this.sMemo[slot]!;
    if (mi >= 0 && this.memo.sealed(mi)) this.fail('corrupt', `${what} changes a container after it was shared (not produced by pickle.dump)`);
  }

  /** Builds a frozen container (tuple, frozenset, inert record) from slots [from, sp). */
  private freeze(from: number): { items: PyValue[]; depth: number } {
    const n = this.sp - from;
    if (n > this.limits.maxContainerItems) this.fail('limit', `a tuple holds more than ${this.limits.maxContainerItems} items (limit maxContainerItems)`);
    let depth = 1;
    for (let i = from; i < this.sp; i++) depth = Math.max(depth, this.adopt(i, null));
    const items = this.vals.slice(from, this.sp);
    if (depth > this.limits.maxDepth) this.fail('limit', `containers nest deeper than ${this.limits.maxDepth} levels (limit maxDepth)`);
    this.sp = from;
    this.spend(n);
    return { items, depth };
  }

  private appendTo(target: number, from: number): void {
    this.mutable(target, Kind.List, 'APPEND');
    const list = this.vals[target] as PyValue[];
    const n = this.sp - from;
    if (list.length + n > this.limits.maxContainerItems) this.fail('limit', `a list grows past ${this.limits.maxContainerItems} items (limit maxContainerItems)`);
    let depth = this.depthOf(target);
    const hook = this.hooks.listItem;
    for (let i = from; i < this.sp; i++) {
      depth = Math.max(depth, this.adopt(i, list));
      let v: PyValue = this.vals[i]!;
      if (hook && this.sKind[i] === Kind.Dict) {
        const r = hook(v as PyDict);
        if (r !== undefined) v = this.replace(i, r);
      }
      list.push(v);
    }
    this.setDepth(target, depth);
    this.sp = from;
    this.spend(n);
  }

  private setItems(target: number, from: number): void {
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
        if (r !== undefined) vals[i + 1] = this.replace(i + 1, r);
      }
    }
    this.spend((this.sp - from) / 2);
    const fresh = this.hooks.freshDict && (placeholder === LAZY || isEmpty(placeholder)) ? this.hooks.freshDict(vals, from, this.sp) : undefined;
    if (fresh !== undefined) {
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

  private qualname(v: PyValue): string {
    return v instanceof PyInert ? v.qualname : '?';
  }

  private memoGet(i: number): void {
    if (!this.memo.has(i)) this.fail('corrupt', `the pickle reads memo entry ${i}, which was never stored`);
    const kind = this.memo.kind(i);
    this.push(this.memo.get(i), kind, 0);
    this.sMemo[this.sp - 1] = kind === Kind.Primitive ? -1 : i;
  }

  private memoPut(i: number): void {
    if (this.sp === 0 || this.sp <= this.markBase()) this.fail('corrupt', 'the pickle memoizes with an empty stack');
    if (i > this.limits.maxMemo) this.fail('limit', `memo index ${i} is beyond ${this.limits.maxMemo} (limit maxMemo)`);
    const top = this.sp - 1;
    const kind = this.sKind[top]! as Kind;
    if (kind !== Kind.Primitive && this.sMemo[top]! >= 0) this.fail('corrupt', 'the same container is memoized twice');
    this.memo.set(i, this.vals[top]!, kind, kind === Kind.Frozen, this.sDepth[top]!);
    if (kind !== Kind.Primitive) this.sMemo[top] = i;
  }

  /** Reads a str/bytes payload of `n` bytes at `p`, or reports that more input is needed. */
  private payload(p: number, n: number): boolean {
    if (n > this.limits.maxStringBytes) this.fail('limit', `a string of ${n} bytes exceeds ${this.limits.maxStringBytes} (limit maxStringBytes)`);
    return p + n <= this.len;
  }

  /** Minimum total buffered bytes needed before run() can make progress again. */
  wanted = 0;

  /**
   * Executes every complete opcode in the buffer. Returns true once STOP was executed.
   * When it returns false, feed more bytes (at least `wanted - pending`).
   */
  run(): boolean {
    if (this.finished) return true;
    const limits = this.limits;
    for (;;) {
      const start = this.pos;
      const len = this.len;
      if (start >= len) {
        this.wanted = 1;
        return false;
      }
      const buf = this.buf;
      const op = buf[start]!;
      if (!this.started) {
        this.started = true;
        if (op !== Op.PROTO) this.notProtocol2(op);
      }
      let next = NEED_MORE;
      switch (op) {
        case Op.PROTO:
          if (start + 2 <= len) {
            const v = buf[start + 1]!;
            if (v < 2 || v > 5) this.fail('unsupported', `pickle protocol ${v} is not supported (snapshots use 2–5)`);
            this.protocol = v;
            next = start + 2;
          }
          break;
        case Op.FRAME:
          if (start + 9 <= len) next = start + 9;
          break;
        case Op.MARK:
          this.marks.push(this.sp);
          next = start + 1;
          break;
        case Op.STOP:
          this.need(1);
          this.value = this.real(--this.sp);
          this.vals.length = 0;
          this.memo.clear();
          this.pos = start + 1;
          this.finished = true;
          return true;
        case Op.POP:
          if (this.sp > this.markBase()) this.sp--;
          else this.popMark();
          next = start + 1;
          break;
        case Op.POP_MARK:
          this.sp = this.popMark();
          next = start + 1;
          break;
        case Op.NONE:
          this.push(null, Kind.Primitive, 0);
          next = start + 1;
          break;
        case Op.NEWTRUE:
        case Op.NEWFALSE:
          this.push(op === Op.NEWTRUE, Kind.Primitive, 0);
          next = start + 1;
          break;
        case Op.BININT1:
          if (start + 2 <= len) {
            this.push(buf[start + 1]!, Kind.Primitive, 0);
            next = start + 2;
          }
          break;
        case Op.BININT2:
          if (start + 3 <= len) {
            this.push(buf[start + 1]! | (buf[start + 2]! << 8), Kind.Primitive, 0);
            next = start + 3;
          }
          break;
        case Op.BININT:
          if (start + 5 <= len) {
            this.push(readI32(buf, start + 1), Kind.Primitive, 0);
            next = start + 5;
          }
          break;
        case Op.LONG1:
          if (start + 2 <= len) {
            const n = buf[start + 1]!;
            if (start + 2 + n <= len) {
              this.push(decodeLong(buf, start + 2, n), Kind.Primitive, 0);
              next = start + 2 + n;
            } else this.wanted = 2 + n;
          }
          break;
        case Op.LONG4:
          if (start + 5 <= len) {
            const n = readU32(buf, start + 1);
            if (this.payload(start + 5, n)) {
              this.push(decodeLong(buf, start + 5, n), Kind.Primitive, 0);
              this.spend(n >> 3);
              next = start + 5 + n;
            } else this.wanted = 5 + n;
          }
          break;
        case Op.BINFLOAT:
          if (start + 9 <= len) {
            this.push(this.view.getFloat64(start + 1, false), Kind.Primitive, 0);
            next = start + 9;
          }
          break;
        case Op.SHORT_BINUNICODE:
        case Op.SHORT_BINSTRING:
        case Op.SHORT_BINBYTES:
          if (start + 2 <= len) {
            const n = buf[start + 1]!;
            if (start + 2 + n <= len) {
              this.pushText(op, start + 2, n);
              next = start + 2 + n;
            } else this.wanted = 2 + n;
          }
          break;
        case Op.BINUNICODE:
        case Op.BINSTRING:
        case Op.BINBYTES:
          if (start + 5 <= len) {
            const n = op === Op.BINSTRING ? readI32(buf, start + 1) : readU32(buf, start + 1);
            if (n < 0) this.fail('corrupt', 'a string with a negative length');
            if (this.payload(start + 5, n)) {
              this.pushText(op, start + 5, n);
              next = start + 5 + n;
            } else this.wanted = 5 + n;
          }
          break;
        case Op.BINUNICODE8:
        case Op.BINBYTES8:
        case Op.BYTEARRAY8:
          if (start + 9 <= len) {
            const n = readU64(buf, start + 1);
            if (this.payload(start + 9, n)) {
              this.pushText(op, start + 9, n);
              next = start + 9 + n;
            } else this.wanted = 9 + n;
          }
          break;
        case Op.EMPTY_LIST:
          this.push([], Kind.List, 1);
          next = start + 1;
          break;
        case Op.EMPTY_DICT:
          this.push(LAZY, Kind.Dict, 1);
          next = start + 1;
          break;
        case Op.EMPTY_SET:
          this.push([], Kind.Set, 1);
          next = start + 1;
          break;
        case Op.EMPTY_TUPLE:
          this.push([], Kind.Frozen, 1);
          next = start + 1;
          break;
        case Op.TUPLE1:
        case Op.TUPLE2:
        case Op.TUPLE3: {
          const n = op - Op.TUPLE1 + 1;
          this.need(n);
          const t = this.freeze(this.sp - n);
          this.push(t.items, Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.TUPLE:
        case Op.FROZENSET: {
          const t = this.freeze(this.popMark());
          this.push(t.items, Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.LIST:
        case Op.DICT: {
          const from = this.popMark();
          const isList = op === Op.LIST;
          const fresh: PyValue = isList ? [] : {};
          // Move the items above the new container, then reuse the APPENDS/SETITEMS path.
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
          next = start + 1;
          break;
        }
        case Op.APPEND:
          this.need(2);
          this.appendTo(this.sp - 2, this.sp - 1);
          next = start + 1;
          break;
        case Op.APPENDS: {
          const from = this.popMark();
          this.appendTo(from - 1, from);
          next = start + 1;
          break;
        }
        case Op.SETITEM:
          this.need(3);
          this.setItems(this.sp - 3, this.sp - 2);
          next = start + 1;
          break;
        case Op.SETITEMS: {
          const from = this.popMark();
          this.setItems(from - 1, from);
          next = start + 1;
          break;
        }
        case Op.ADDITEMS: {
          const from = this.popMark();
          const target = from - 1;
          this.mutable(target, Kind.Set, 'ADDITEMS');
          const set = this.vals[target] as PyValue[];
          let depth = this.depthOf(target);
          for (let i = from; i < this.sp; i++) {
            depth = Math.max(depth, this.adopt(i, set));
            set.push(this.vals[i]!);
          }
          if (set.length > limits.maxContainerItems) this.fail('limit', `a set grows past ${limits.maxContainerItems} items (limit maxContainerItems)`);
          this.setDepth(target, depth);
          this.spend(this.sp - from);
          this.sp = from;
          next = start + 1;
          break;
        }
        case Op.BINGET:
          if (start + 2 <= len) {
            this.memoGet(buf[start + 1]!);
            next = start + 2;
          }
          break;
        case Op.LONG_BINGET:
          if (start + 5 <= len) {
            this.memoGet(readU32(buf, start + 1));
            next = start + 5;
          }
          break;
        case Op.BINPUT:
          if (start + 2 <= len) {
            this.memoPut(buf[start + 1]!);
            next = start + 2;
          }
          break;
        case Op.LONG_BINPUT:
          if (start + 5 <= len) {
            this.memoPut(readU32(buf, start + 1));
            next = start + 5;
          }
          break;
        case Op.MEMOIZE:
          this.memoPut(this.memo.count);
          next = start + 1;
          break;
        case Op.GLOBAL: {
          const nl1 = this.lineEnd(start + 1);
          const nl2 = nl1 < 0 ? -1 : this.lineEnd(nl1 + 1);
          if (nl2 >= 0) {
            const qual = decodeUtf8(buf, start + 1, nl1) + '.' + decodeUtf8(buf, nl1 + 1, nl2);
            this.push(new PyInert('global', qual, []), Kind.Frozen, 1);
            next = nl2 + 1;
          }
          break;
        }
        case Op.STACK_GLOBAL: {
          this.need(2);
          const mod = this.vals[this.sp - 2];
          const name = this.vals[this.sp - 1];
          if (typeof mod !== 'string' || typeof name !== 'string') this.fail('corrupt', 'STACK_GLOBAL without a module and a name');
          this.sp -= 2;
          this.push(new PyInert('global', `${mod}.${name}`, []), Kind.Frozen, 1);
          next = start + 1;
          break;
        }
        case Op.REDUCE:
        case Op.NEWOBJ:
        case Op.BUILD: {
          this.need(2);
          const fn = this.vals[this.sp - 2]!;
          const t = this.freeze(this.sp - 2);
          const kind = op === Op.REDUCE ? 'call' : op === Op.NEWOBJ ? 'new' : 'build';
          this.push(new PyInert(kind, this.qualname(fn), t.items), Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.NEWOBJ_EX: {
          this.need(3);
          const cls = this.vals[this.sp - 3]!;
          const t = this.freeze(this.sp - 3);
          this.push(new PyInert('new', this.qualname(cls), t.items), Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        default: {
          const name = unsupportedOpName(op);
          if (name) this.fail('unsupported', `the pickle uses opcode ${name}, which PyTorch memory snapshots never contain`);
          this.fail('corrupt', `invalid pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
        }
      }
      if (next === NEED_MORE) {
        if (this.wanted <= 0 || start + this.wanted <= len) this.wanted = Math.max(2, len - start + 1);
        this.pos = start;
        return false;
      }
      this.wanted = 0;
      this.pos = next;
    }
  }

  private pushText(op: number, p: number, n: number): void {
    const buf = this.buf;
    let v: PyValue;
    if (op === Op.SHORT_BINUNICODE || op === Op.BINUNICODE || op === Op.BINUNICODE8) v = decodeUtf8(buf, p, p + n);
    else if (op === Op.SHORT_BINSTRING || op === Op.BINSTRING) v = decodeLatin1(buf, p, p + n);
    else v = buf.slice(p, p + n);
    this.push(v, Kind.Primitive, 0);
    if (n > 64) this.spend(n >> 4);
  }

  /** Index of the newline ending a GLOBAL line starting at p, or -1 if not buffered yet. */
  private lineEnd(p: number): number {
    const stop = Math.min(this.len, p + 1024);
    for (let i = p; i < stop; i++) if (this.buf[i] === 0x0a) return i;
    if (stop === p + 1024) this.fail('corrupt', 'a GLOBAL opcode with a name longer than 1 KB');
    return -1;
  }

  /** The first opcode is not PROTO: say what the bytes look like instead. */
  private notProtocol2(op: number): never {
    if (op === 0x7b || op === 0x5b) this.fail('unsupported', 'this looks like JSON, not a pickle');
    if (op === 0x50 && this.buf[1] === 0x4b) {
      throw new SnapshotError('not-pickle', 'this is a zip archive (a torch.save checkpoint?), not a memory snapshot pickle', 0);
    }
    if (op === 0x1f && this.buf[1] === 0x8b) throw new SnapshotError('not-pickle', 'this is gzip-compressed data, not a pickle', 0);
    if (op === Op.MARK || op === Op.EMPTY_DICT || op === Op.EMPTY_LIST || op === Op.GLOBAL) {
      this.fail('unsupported', 'pickle protocol 0/1 is not supported (PyTorch writes protocol 2 or later)');
    }
    throw new SnapshotError('not-pickle', 'this file is not a pickle (it does not start with a pickle protocol header)', 0);
  }
}
