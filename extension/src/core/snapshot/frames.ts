import { SnapshotError } from '../errors';
import { describePy, isDict } from '../pickle/values';
import type { PyValue } from '../pickle/values';
import { i32, StringTable } from './columns';

/**
 * Frames and stacks, interned. Frame dicts are shared objects in the pickle (memoized), so an
 * identity cache catches nearly all of them; stacks are deduplicated by content through a hash.
 */
export class FrameTable {
  readonly strings = new StringTable();
  readonly file = i32();
  readonly line = i32();
  readonly name = i32();
  private readonly byObject = new Map<object, number>();
  private readonly byValue = new Map<string, number>();

  get size(): number {
    return this.line.length;
  }

  intern(frame: PyValue): number {
    if (typeof frame === 'object' && frame !== null) {
      const hit = this.byObject.get(frame);
      if (hit !== undefined) return hit;
    }
    if (!isDict(frame)) throw new SnapshotError('wrong-shape', `not a PyTorch memory snapshot: a stack frame is ${describePy(frame)}, not a dict`);
    const f = this.strings.id(typeof frame.filename === 'string' ? frame.filename : '??');
    const n = this.strings.id(typeof frame.name === 'string' ? frame.name : '??');
    // Line numbers live in an Int32 column: anything else (NaN, -1, 10**30) is "no line".
    const l = typeof frame.line === 'number' && Number.isInteger(frame.line) && frame.line >= 0 && frame.line < 2 ** 31 ? frame.line : 0;
    const key = `${f}:${l}:${n}`;
    let id = this.byValue.get(key);
    if (id === undefined) {
      id = this.line.length;
      this.file.push(f);
      this.line.push(l);
      this.name.push(n);
      this.byValue.set(key, id);
    }
    this.byObject.set(frame, id);
    return id;
  }

  fileOf(id: number): string {
    return this.strings.values[this.file.data[id]!]!;
  }

  nameOf(id: number): string {
    return this.strings.values[this.name.data[id]!]!;
  }

  lineOf(id: number): number {
    return this.line.data[id]!;
  }
}

/** Stacks as runs of frame ids, innermost first. Stack 0 is the empty stack. */
export class StackTable {
  readonly offsets = i32();
  readonly frames = i32();
  private readonly heads = new Map<number, number>();
  private readonly chain = i32();
  private scratch = new Int32Array(64);

  constructor(readonly frameTable: FrameTable) {
    this.offsets.push(0);
    this.offsets.push(0);
    this.chain.push(-1);
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  intern(list: readonly PyValue[]): number {
    const n = list.length;
    if (n === 0) return 0;
    if (n > this.scratch.length) this.scratch = new Int32Array(n * 2);
    const ids = this.scratch;
    let h = 0x811c9dc5 ^ n;
    for (let i = 0; i < n; i++) {
      const id = this.frameTable.intern(list[i]!);
      ids[i] = id;
      h = Math.imul(h ^ id, 16777619);
    }
    const head = this.heads.get(h);
    for (let s = head ?? -1; s >= 0; s = this.chain.data[s]!) {
      if (this.equals(s, ids, n)) return s;
    }
    const id = this.size;
    for (let i = 0; i < n; i++) this.frames.push(ids[i]!);
    this.offsets.push(this.frames.length);
    this.chain.push(head ?? -1);
    this.heads.set(h, id);
    return id;
  }

  private equals(s: number, ids: Int32Array, n: number): boolean {
    const a = this.offsets.data[s]!;
    if (this.offsets.data[s + 1]! - a !== n) return false;
    for (let i = 0; i < n; i++) if (this.frames.data[a + i] !== ids[i]) return false;
    return true;
  }

  /** Frame ids of a stack, innermost first. */
  get(stack: number): Int32Array {
    if (stack <= 0) return EMPTY;
    return this.frames.data.subarray(this.offsets.data[stack]!, this.offsets.data[stack + 1]!);
  }
}

const EMPTY = new Int32Array(0);
