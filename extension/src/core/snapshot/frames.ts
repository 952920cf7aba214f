import { SnapshotError } from '../errors';
import { describePy, isDict } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { i32, StringTable } from './columns';
import { originalFrames } from './traceText';

/**
 * Frames and stacks, interned. Frame dicts are shared objects in the pickle (memoized), so an
 * identity cache catches nearly all of them; stacks are interned in ./stacks.
 */
const OWN_FILE = /(^|[\\/])headroom_agent[\\/][^\\/]+\.py$/;

export class FrameTable {
  readonly strings = new StringTable();
  readonly file = i32();
  readonly line = i32();
  readonly name = i32();
  private readonly byObject = new Map<object, number>();
  private readonly byValue = new Map<string, number>();
  private readonly own: (boolean | undefined)[] = []; // by file name id: one array read per frame of every stack
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
    const f = this.file.data[id]!;
    return (this.own[f] ??= OWN_FILE.test(this.fileOf(id)));
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
