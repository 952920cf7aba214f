import { SnapshotError } from '../errors';
import { limitError, WORK_ALLOWANCE } from '../limits';
import type { LimitName } from '../limits';
import { decodeLatin1, decodeLong, decodeUtf8, readI32, readU32, readU64 } from './decode';
import { EntryDecoder } from './entries';
import type { Limits as PickleLimits } from '../limits';
import { LAZY } from './memo';
import { Op, unsupportedOpName } from './opcodes';
import { notAPickle } from './sniff';
import { Kind, ValueStack } from './stack';
import type { SealHooks } from './stack';
import { PyInert } from './values';
import type { PyValue } from './values';

const NEED_MORE = -1;

/**
 * A pickle VM that executes opcodes as their bytes arrive and never runs code: GLOBAL, REDUCE,
 * NEWOBJ and BUILD only build inert records. Containers and their safety rules live in ValueStack.
 */
export class PickleMachine {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private len = 0;
  /** Bytes discarded before buf[0], so errors can name absolute offsets. */
  private base = 0;

  private started = false;
  private finished = false;
  private value: PyValue = null;
  protocol = 0;

  private readonly stack: ValueStack;
  private readonly entries: EntryDecoder; // trace entries without the VM
  /** Opcodes executed (FRAME counts 8, a BigInt 4 per byte): bounded per byte of the file (gzip bombs). */
  private work = 0;
  private workBudget: number;
  /** Payload bytes of str/bytes values longer than 16 bytes. */
  private stringBytes = 0;

  /**
   * @param inputBytes the size of the file as stored (compressed size for gzip), when known. The
   *   work budget is WORK_ALLOWANCE + workPerByte × that; unknown, it follows the bytes fed.
   */
  constructor(
    private readonly limits: PickleLimits,
    hooks: SealHooks = {},
    private readonly inputBytes?: number,
  ) {
    this.stack = new ValueStack(
      limits,
      hooks,
      (code, message) => this.fail(code, message),
      (name, message) => this.limit(name, message),
    );
    this.entries = new EntryDecoder(this.stack, hooks.entries, limits);
    if (inputBytes !== undefined && inputBytes > limits.fileBytes) {
      this.limit('fileBytes', `the file holds ${inputBytes} bytes, more than ${limits.fileBytes}`);
    }
    this.workBudget = WORK_ALLOWANCE + limits.workPerByte * (inputBytes ?? 0);
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
    const fed = this.base + this.len;
    if (fed > this.limits.pickleBytes)
      this.limit('pickleBytes', `the pickle data (after decompression) is larger than ${this.limits.pickleBytes} bytes`);
    if (this.inputBytes === undefined) this.workBudget = WORK_ALLOWANCE + this.limits.workPerByte * fed;
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

  private fail(code: 'corrupt' | 'unsupported', message: string, at = this.pos): never {
    throw new SnapshotError(code, message, this.base + at);
  }

  private limit(name: LimitName, message: string, at = this.pos): never {
    throw limitError(name, message, this.base + at);
  }

  /** Reads a str/bytes payload of `n` bytes at `p`, or reports that more input is needed. */
  private payload(p: number, n: number): boolean {
    if (n > this.limits.stringBytes) this.limit('stringBytes', `a string of ${n} bytes exceeds ${this.limits.stringBytes} bytes`);
    return p + n <= this.len;
  }

  /** Checked whenever run() stops: a run executes at most one opcode per buffered byte. */
  private checkWork(): void {
    if (this.work > this.workBudget) {
      this.limit(
        'workPerByte',
        `the pickle does more than ${this.workBudget} opcodes' work for a ${this.inputBytes ?? this.base + this.len}-byte file (a compression bomb?)`,
      );
    }
  }

  /** Minimum total buffered bytes needed before run() can make progress again. */
  wanted = 0;

  /**
   * Executes every complete opcode in the buffer. Returns true once STOP was executed.
   * When it returns false, feed more bytes (at least `wanted - pending`).
   */
  run(): boolean {
    if (this.finished) return true;
    const st = this.stack;
    for (;;) {
      const start = this.pos;
      const len = this.len;
      if (start >= len) {
        this.wanted = 1;
        this.checkWork();
        return false;
      }
      this.work++;
      const buf = this.buf;
      const op = buf[start]!;
      if (!this.started) {
        this.started = true;
        if (op !== Op.PROTO) notAPickle(buf, start, len);
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
          if (start + 9 <= len) {
            next = start + 9;
            this.work += 8;
          }
          break;
        case Op.MARK:
          st.mark();
          next = start + 1;
          break;
        case Op.STOP:
          this.checkWork();
          this.value = st.finish();
          this.pos = start + 1;
          this.finished = true;
          return true;
        case Op.POP:
          st.pop();
          next = start + 1;
          break;
        case Op.POP_MARK:
          st.sp = st.popMark();
          next = start + 1;
          break;
        case Op.NONE:
          st.push(null, Kind.Primitive, 0);
          next = start + 1;
          break;
        case Op.NEWTRUE:
        case Op.NEWFALSE:
          st.push(op === Op.NEWTRUE, Kind.Primitive, 0);
          next = start + 1;
          break;
        case Op.BININT1:
          if (start + 2 <= len) {
            st.push(buf[start + 1]!, Kind.Primitive, 0);
            next = start + 2;
          }
          break;
        case Op.BININT2:
          if (start + 3 <= len) {
            st.push(buf[start + 1]! | (buf[start + 2]! << 8), Kind.Primitive, 0);
            next = start + 3;
          }
          break;
        case Op.BININT:
          if (start + 5 <= len) {
            st.push(readI32(buf, start + 1), Kind.Primitive, 0);
            next = start + 5;
          }
          break;
        case Op.LONG1:
          if (start + 2 <= len) next = this.long(start + 2, buf[start + 1]!);
          break;
        case Op.LONG4:
          if (start + 5 <= len) next = this.long(start + 5, readU32(buf, start + 1));
          break;
        case Op.BINFLOAT:
          if (start + 9 <= len) {
            st.push(this.view.getFloat64(start + 1, false), Kind.Primitive, 0);
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
          st.created();
          st.push([], Kind.List, 1);
          next = start + 1;
          break;
        case Op.EMPTY_DICT:
          next = this.entries.decode(buf, start, len);
          if (next >= 0) this.work += this.entries.ops;
          else {
            st.push(LAZY, Kind.Dict, 1);
            next = start + 1;
          }
          break;
        case Op.EMPTY_SET:
          st.created();
          st.push([], Kind.Set, 1);
          next = start + 1;
          break;
        case Op.EMPTY_TUPLE:
          st.push([], Kind.Frozen, 1);
          next = start + 1;
          break;
        case Op.TUPLE1:
        case Op.TUPLE2:
        case Op.TUPLE3: {
          const n = op - Op.TUPLE1 + 1;
          st.need(n);
          // Not counted as objects: newer torch writes a pool_id tuple in every trace entry.
          const t = st.freeze(st.sp - n);
          st.push(t.items, Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.TUPLE:
        case Op.FROZENSET: {
          st.created();
          const t = st.freeze(st.popMark());
          st.push(t.items, Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.LIST:
        case Op.DICT:
          st.buildFromMark(op === Op.LIST);
          next = start + 1;
          break;
        case Op.APPEND:
          st.need(2);
          st.appendTo(st.sp - 2, st.sp - 1);
          next = start + 1;
          break;
        case Op.APPENDS: {
          const from = st.popMark();
          st.appendTo(from - 1, from);
          next = start + 1;
          break;
        }
        case Op.SETITEM:
          st.need(3);
          st.setItems(st.sp - 3, st.sp - 2);
          next = start + 1;
          break;
        case Op.SETITEMS: {
          const from = st.popMark();
          st.setItems(from - 1, from);
          next = start + 1;
          break;
        }
        case Op.ADDITEMS:
          st.addItems();
          next = start + 1;
          break;
        case Op.BINGET:
          if (start + 2 <= len) {
            st.memoGet(buf[start + 1]!);
            next = start + 2;
          }
          break;
        case Op.LONG_BINGET:
          if (start + 5 <= len) {
            st.memoGet(readU32(buf, start + 1));
            next = start + 5;
          }
          break;
        case Op.BINPUT:
          if (start + 2 <= len) {
            st.memoPut(buf[start + 1]!);
            next = start + 2;
          }
          break;
        case Op.LONG_BINPUT:
          if (start + 5 <= len) {
            st.memoPut(readU32(buf, start + 1));
            next = start + 5;
          }
          break;
        case Op.MEMOIZE:
          st.memoPut(st.memoCount);
          next = start + 1;
          break;
        case Op.GLOBAL: {
          const nl1 = this.lineEnd(start + 1);
          const nl2 = nl1 < 0 ? -1 : this.lineEnd(nl1 + 1);
          if (nl2 >= 0) {
            const qual = decodeUtf8(buf, start + 1, nl1) + '.' + decodeUtf8(buf, nl1 + 1, nl2);
            st.created();
            st.push(new PyInert('global', qual, []), Kind.Frozen, 1);
            next = nl2 + 1;
          }
          break;
        }
        case Op.STACK_GLOBAL: {
          st.need(2);
          const mod = st.vals[st.sp - 2];
          const name = st.vals[st.sp - 1];
          if (typeof mod !== 'string' || typeof name !== 'string') this.fail('corrupt', 'STACK_GLOBAL without a module and a name');
          st.sp -= 2;
          st.created();
          st.push(new PyInert('global', `${mod}.${name}`, []), Kind.Frozen, 1);
          next = start + 1;
          break;
        }
        case Op.REDUCE:
        case Op.NEWOBJ:
        case Op.BUILD: {
          st.need(2);
          st.created();
          const fn = st.vals[st.sp - 2]!;
          const t = st.freeze(st.sp - 2);
          const kind = op === Op.REDUCE ? 'call' : op === Op.NEWOBJ ? 'new' : 'build';
          st.push(new PyInert(kind, st.qualname(fn), t.items), Kind.Frozen, t.depth);
          next = start + 1;
          break;
        }
        case Op.NEWOBJ_EX: {
          st.need(3);
          st.created();
          const cls = st.vals[st.sp - 3]!;
          const t = st.freeze(st.sp - 3);
          st.push(new PyInert('new', st.qualname(cls), t.items), Kind.Frozen, t.depth);
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
        this.work--; // counted again when its bytes are complete
        this.checkWork();
        return false;
      }
      this.wanted = 0;
      this.pos = next;
    }
  }

  /**
   * A LONG1/LONG4 payload of n bytes at p: where the opcode ends, or NEED_MORE. A huge int is one
   * uncancellable BigInt step (67 MB: 35 s), so n is bounded; a BigInt (past 2^53) costs ~2 µs,
   * forty opcodes' time, so it counts 4 work per byte: the budget bounds time, not opcodes.
   */
  private long(p: number, n: number): number {
    if (n > this.limits.longBytes)
      this.limit('longBytes', `an integer of ${n} bytes is longer than ${this.limits.longBytes} (snapshot integers fit in 8)`);
    if (p + n > this.len) {
      this.wanted = p - this.pos + n;
      return NEED_MORE;
    }
    const v = decodeLong(this.buf, p, n);
    if (typeof v === 'bigint') this.work += 4 * n;
    this.stack.push(v, Kind.Primitive, 0);
    return p + n;
  }

  private pushText(op: number, p: number, n: number): void {
    const buf = this.buf;
    if (n > 16) {
      this.stringBytes += n;
      if (this.stringBytes > this.limits.stringsTotal)
        this.limit('stringsTotal', `the strings of the pickle add up to more than ${this.limits.stringsTotal} bytes`);
    }
    let v: PyValue;
    if (op === Op.SHORT_BINUNICODE || op === Op.BINUNICODE || op === Op.BINUNICODE8) v = decodeUtf8(buf, p, p + n);
    else if (op === Op.SHORT_BINSTRING || op === Op.BINSTRING) v = decodeLatin1(buf, p, p + n);
    else {
      this.stack.created();
      v = buf.slice(p, p + n);
    }
    this.stack.push(v, Kind.Primitive, 0);
    if (n > 64) this.stack.spend(n >> 4);
  }

  /** Index of the newline ending a GLOBAL line starting at p, or -1 if not buffered yet. */
  private lineEnd(p: number): number {
    const stop = Math.min(this.len, p + 1024);
    for (let i = p; i < stop; i++) if (this.buf[i] === 0x0a) return i;
    if (stop === p + 1024) this.fail('corrupt', 'a GLOBAL opcode with a name longer than 1 KB');
    return -1;
  }
}
