import { isDict } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { i32 } from './columns';
import type { FrameTable } from './frames';

/** Probes of one hash bucket before it is keyed by exact content: real buckets hold one or two. */
const MAX_PROBES = 8;
/** A bucket's head when it is crowded: its stacks are found through `exact`. */
const CROWDED = -2;

/**
 * Stacks as runs of frame ids, innermost first. Stack 0 is the empty stack. Stacks are deduplicated
 * by content through a hash seeded at run time, so a file cannot be written to collide it; a
 * bucket that fills anyway (262,144 colliding stacks were quadratic) is keyed exactly from then on.
 */
export class StackTable {
  readonly offsets = i32();
  readonly frames = i32();
  private readonly heads = new Map<number, number>();
  private readonly chain = i32();
  private readonly exact = new Map<string, number>();
  private readonly seed = (Math.random() * 2 ** 32) | 0;
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
    let h = this.seed ^ n;
    for (let i = 0; i < n; i++) {
      h = Math.imul(h ^ ids[i]!, 16777619);
      h ^= h >>> 15;
    }
    const head = this.heads.get(h) ?? -1;
    if (head === CROWDED) {
      const key = ids.subarray(0, n).join();
      const hit = this.exact.get(key);
      return hit ?? this.add(n, -1, (id) => this.exact.set(key, id));
    }
    let probes = 0;
    for (let s = head; s >= 0; s = this.chain.data[s]!, probes++) if (this.equals(s, ids, n)) return s;
    if (probes < MAX_PROBES) return this.add(n, head, (id) => this.heads.set(h, id));
    // A crowded bucket: its stacks are keyed by content from now on.
    for (let s = head; s >= 0; s = this.chain.data[s]!) this.exact.set(this.get(s).join(), s);
    this.heads.set(h, CROWDED);
    const key = ids.subarray(0, n).join();
    return this.add(n, -1, (id) => this.exact.set(key, id));
  }

  private add(n: number, next: number, index: (id: number) => void): number {
    const id = this.size;
    for (let i = 0; i < n; i++) this.frames.push(this.scratch[i]!);
    this.offsets.push(this.frames.length);
    this.chain.push(next);
    index(id);
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
