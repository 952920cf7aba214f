import { limitError } from '../limits';
import { describePy } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { Action, actionCode } from './actions';
import { f64, i32, StringTable, u8 } from './columns';
import type { Column } from './columns';
import { toCount } from './counts';
import type { StackTable } from './stacks';
import { framesFromText } from './traceText';

/** A finished table of trace entries, one row each, in file order. */
export interface TraceColumns {
  action: Uint8Array;
  /** Address; for `oom`, the device_free figure (PyTorch keeps it in the same field). */
  addr: Float64Array;
  size: Float64Array;
  /** Stream id: index into `streams` (raw cudaStream_t values, 0 = default stream). */
  stream: Int32Array;
  streams: number[];
  /** µs since the epoch, NaN when the producer had no `time_us` (torch < 2.2). */
  timeUs: Float64Array;
  /** Stack id (0 = no frames). */
  stack: Int32Array;
  /** Row -> `user_metadata` / `compile_context`, only where not the default ('' / 'N/A'). */
  userMetadata: Map<number, string>;
  compileContext: Map<number, string>;
  /** Row -> action name, for actions this version does not know. */
  otherActions: Map<number, string>;
}

const bad = (what: string, v: PyValue | undefined): string =>
  `its ${what} is ${describePy(v)}${typeof v === 'number' || typeof v === 'bigint' ? ` (${String(v).slice(0, 40)})` : ''}, not a non-negative integer`;

/**
 * Builds the trace columns. The pickle reader feeds it each entry dict the moment the entry is
 * appended to its list, so a million-event trace never exists as a million objects.
 */
export class TraceRows {
  private readonly action: Column<Uint8Array>;
  private readonly addr: Column<Float64Array>;
  private readonly size: Column<Float64Array>;
  private readonly stream: Column<Int32Array>;
  private readonly streams = new StringTable<number>(); // raw cudaStream_t pointers: a run uses a handful
  /** append()'s addr, size, stream, time: a double passed as an argument is allocated. */
  readonly next = new Float64Array(4);
  private lastStream = -1;
  private lastStreamId = 0;
  private readonly time: Column<Float64Array>;
  private readonly stack: Column<Int32Array>;
  private readonly meta = new Map<number, string>();
  private readonly compile = new Map<number, string>();
  private readonly other = new Map<number, string>();
  private readonly forwardParsed = new WeakMap<object, PyDict[]>();

  /**
   * @param bytesHint the pickle's size, when known. A 2.11 trace entry takes at least ~56 bytes, so
   *   the columns start at size/56 rows and rarely grow (a growth copies every column). When
   *   entries are larger (C++ stacks), the idle rows cost at most ~0.6× the file size until
   *   finish() trims them.
   */
  constructor(
    private readonly stacks: StackTable,
    bytesHint = 0,
    private readonly maxRows = Infinity,
  ) {
    const cap = Math.max(1 << 14, Math.min(Math.floor(bytesHint / 56), maxRows));
    this.action = u8(cap);
    this.addr = f64(cap);
    this.size = f64(cap);
    this.stream = i32(cap);
    this.time = f64(cap);
    this.stack = i32(cap);
  }

  get length(): number {
    return this.action.length;
  }

  /** Adds a trace entry and returns its row, or a reason it is not one. */
  tryAdd(e: PyDict, dryRun = false): number | string {
    return this.add(
      e.action,
      e.addr,
      e.device_free,
      e.size,
      e.stream,
      e.time_us,
      e.frames,
      e.user_metadata,
      e.compile_context,
      dryRun,
      e.forward_frames,
    );
  }

  /** Why tryAdd declined this entry (for the normalizer's error), or undefined. */
  reason(e: PyDict): string | undefined {
    const r = this.tryAdd(e, true);
    return typeof r === 'string' ? r : undefined;
  }

  add(
    action: PyValue | undefined,
    addrV: PyValue | undefined,
    deviceFree: PyValue | undefined,
    sizeV: PyValue | undefined,
    streamV: PyValue | undefined,
    timeV: PyValue | undefined,
    frames: PyValue | undefined,
    um: PyValue | undefined,
    cc: PyValue | undefined,
    dryRun = false,
    forward?: PyValue,
  ): number | string {
    if (typeof action !== 'string') return `its action is ${describePy(action)}`;
    const code = actionCode(action);
    const addrRaw = code === Action.Oom ? (deviceFree ?? addrV) : addrV;
    const addr = toCount(addrRaw);
    if (addr === undefined && addrRaw !== undefined && addrRaw !== null) return bad(code === Action.Oom ? 'device_free' : 'addr', addrRaw);
    const size = toCount(sizeV);
    if (size === undefined) return bad('size', sizeV);
    const time = timeV === undefined || timeV === null ? NaN : toCount(timeV);
    if (time === undefined) return bad('time_us', timeV);
    const stream = streamV === undefined || streamV === null ? 0 : toCount(streamV);
    if (stream === undefined) return bad('stream', streamV);
    let stack = 0;
    // A number here is the stack id the reader's hook put in place of the frame list.
    if (typeof frames === 'number') {
      if (!Number.isInteger(frames) || frames < 0 || frames >= this.stacks.size)
        return `its frames are ${describePy(frames)}, not a list of frames`;
      stack = frames;
    } else if (Array.isArray(frames)) stack = dryRun ? 0 : this.stacks.intern(frames);
    else if (frames !== undefined && frames !== null) return `its frames are ${describePy(frames)}, not a list of frames`;
    if (dryRun) return 0;
    // Newer torch: the forward stack that made a tensor allocated in backward credits it to that line.
    if (Array.isArray(forward) && forward.length) {
      // Shared lists arrive as one object (the pickle's memo): each is parsed once.
      let fwd = this.forwardParsed.get(forward);
      if (!fwd) this.forwardParsed.set(forward, (fwd = framesFromText(forward)));
      if (fwd.length) stack = this.stacks.withForward(stack, fwd);
    }
    this.next.set([addr ?? 0, size, stream, time]);
    return this.append(code, stack, action, um, cc);
  }

  /** Appends a row already checked (add, rowSink.ts): the stream a raw cudaStream_t, um/cc kept if non-default strings. */
  append(code: Action, stack: number, action: string, um: PyValue | undefined, cc: PyValue | undefined): number {
    const v = this.next;
    const stream = v[2]!;
    const row = this.action.length;
    if (row >= this.maxRows) throw limitError('traceEntries', `the snapshot holds more than ${this.maxRows} trace entries`);
    // Straight into each array (one capacity check): Column.push serves three array types, and is slower for it.
    if (row === this.action.data.length)
      for (const c of [this.action, this.addr, this.size, this.stream, this.time, this.stack]) c.reserve();
    this.action.data[row] = code;
    this.addr.data[row] = v[0]!;
    this.size.data[row] = v[1]!;
    this.stream.data[row] = stream === this.lastStream ? this.lastStreamId : this.streamId(stream);
    this.time.data[row] = v[3]!;
    this.stack.data[row] = stack;
    this.action.length = this.addr.length = this.size.length = this.stream.length = this.time.length = this.stack.length = row + 1;
    if (code === Action.Other) this.other.set(row, action);
    if (typeof um === 'string' && um !== '') this.meta.set(row, um);
    if (typeof cc === 'string' && cc !== 'N/A') this.compile.set(row, cc);
    return row;
  }

  private streamId(stream: number): number {
    this.lastStream = stream;
    return (this.lastStreamId = this.streams.id(stream));
  }

  /** The rows so far; `peek` gives views that a later row may outgrow (for a partial answer, used at once). */
  finish(peek = false): TraceColumns {
    const c = <T extends Float64Array | Int32Array | Uint8Array>(col: Column<T>): T =>
      peek ? (col.data.subarray(0, col.length) as T) : col.seal();
    return {
      action: c(this.action),
      addr: c(this.addr),
      size: c(this.size),
      stream: c(this.stream),
      timeUs: c(this.time),
      stack: c(this.stack),
      streams: this.streams.values,
      userMetadata: this.meta,
      compileContext: this.compile,
      otherActions: this.other,
    };
  }
}
