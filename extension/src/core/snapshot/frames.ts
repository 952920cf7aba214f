import { SnapshotError } from '../errors';
import { describePy, isDict } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { i32, StringTable } from './columns';
import { originalFrames } from './traceText';

/**
 * Frames and stacks, interned. Frame dicts are shared objects in the pickle (memoized), so an
 * identity cache catches nearly all of them; stacks are deduplicated by content through a hash.
 */
const OWN_FILE = /(^|[\\/])headroom_agent[\\/][^\\/]+\.py$/;

export class FrameTable {
  readonly strings = new StringTable();
  readonly file = i32();
  readonly line = i32();
  readonly name = i32();
  private readonly byObject = new Map<object, number>();
  private readonly byValue = new Map<string, number>();
  private readonly own = new Map<number, boolean>();
  private readonly originals = new Map<object, number[]>();

  get size(): number {
    return this.line.length;
  }

  intern(frame: PyValue): number {
    if (typeof frame === 'object' && frame !== null) {
      const hit = this.byObject.get(frame);
      if (hit !== undefined) return hit;
    }
    if (!isDict(frame))
      throw new SnapshotError('wrong-shape', `not a PyTorch memory snapshot: a stack frame is ${describePy(frame)}, not a dict`);
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

  /**
   * The model frames a generated (FX/Inductor) frame was traced from, innermost first, when the
   * snapshot carries them (`fx_original_trace`, newer torch); empty otherwise.
   */
  originalsOf(frame: PyDict): number[] {
    let ids = this.originals.get(frame);
    if (!ids) this.originals.set(frame, (ids = originalFrames(frame).map((f) => this.intern(f))));
    return ids;
  }

  /** A frame of Headroom's agent (extension/agent/headroom_agent/*.py): never shown, never attributed. */
  isOwn(id: number): boolean {
    let own = this.own.get(this.file.data[id]!);
    if (own === undefined) this.own.set(this.file.data[id]!, (own = OWN_FILE.test(this.fileOf(id))));
    return own;
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
    if (list.length === 0) return 0;
    let n = 0;
    for (let i = 0; i < list.length; i++) {
      const raw = list[i]!;
      const id = this.frameTable.intern(raw);
      // A generated frame is preceded by the model lines it was traced from, when torch gives them.
      if (isDict(raw) && raw.fx_original_trace !== undefined) for (const o of this.frameTable.originalsOf(raw)) n = this.put(n, o);
      // Headroom's own agent (its backward() wrapper) is never part of a user's stack.
      if (!this.frameTable.isOwn(id)) n = this.put(n, id);
    }
    return this.seal(n);
  }

  /**
   * A backward allocation's stack with the forward stack that made its tensor in front
   * (`forward_frames`, newer torch): the forward line is then its innermost user frame.
   */
  withForward(stack: number, forward: readonly PyDict[]): number {
    let n = 0;
    for (const f of forward) {
      const id = this.frameTable.intern(f);
      if (!this.frameTable.isOwn(id)) n = this.put(n, id);
    }
    for (const id of this.get(stack)) n = this.put(n, id);
    return this.seal(n);
  }

  private put(n: number, id: number): number {
    if (n >= this.scratch.length) {
      const grown = new Int32Array(this.scratch.length * 2);
      grown.set(this.scratch);
      this.scratch = grown;
    }
    this.scratch[n] = id;
    return n + 1;
  }

  private seal(n: number): number {
    const ids = this.scratch;
    if (n === 0) return 0;
    let h = 0x811c9dc5 ^ n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ ids[i]!, 16777619);
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
