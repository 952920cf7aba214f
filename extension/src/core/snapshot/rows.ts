import { describePy } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { Action, actionCode } from './actions';
import { f64, i32, u8 } from './columns';
import type { StackTable } from './frames';

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

export function toNumber(v: PyValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/**
 * Builds the trace columns. The pickle reader feeds it each entry dict the moment the entry is
 * appended to its list, so a million-event trace never exists as a million objects.
 */
export class TraceRows {
  private readonly action = u8(1 << 14);
  private readonly addr = f64(1 << 14);
  private readonly size = f64(1 << 14);
  private readonly stream = i32(1 << 14);
  private readonly streams = new StreamIds();
  private readonly time = f64(1 << 14);
  private readonly stack = i32(1 << 14);
  private readonly meta = new Map<number, string>();
  private readonly compile = new Map<number, string>();
  private readonly other = new Map<number, string>();

  constructor(private readonly stacks: StackTable) {}

  get length(): number {
    return this.action.length;
  }

  /** Adds a trace entry and returns its row, or a reason it is not one. */
  tryAdd(e: PyDict): number | string {
    const action = e.action;
    if (typeof action !== 'string') return `its action is ${describePy(action)}`;
    const code = actionCode(action);
    const addr = toNumber(code === Action.Oom ? (e.device_free ?? e.addr) : e.addr);
    const size = toNumber(e.size);
    if (size === undefined) return `its size is ${describePy(e.size)}`;
    if (addr === undefined && e.addr !== undefined) return `its addr is ${describePy(e.addr)}`;
    const frames = e.frames;
    let stack = 0;
    if (typeof frames === 'number') stack = frames;
    else if (Array.isArray(frames)) stack = this.stacks.intern(frames);
    else if (frames !== undefined && frames !== null) return `its frames are ${describePy(frames)}`;
    const row = this.action.length;
    this.action.push(code);
    if (code === Action.Other) this.other.set(row, action);
    this.addr.push(addr ?? 0);
    this.size.push(size);
    this.stream.push(this.streams.id(toNumber(e.stream) ?? 0));
    this.time.push(toNumber(e.time_us) ?? NaN);
    this.stack.push(stack);
    const um = e.user_metadata;
    if (typeof um === 'string' && um !== '') this.meta.set(row, um);
    const cc = e.compile_context;
    if (typeof cc === 'string' && cc !== 'N/A') this.compile.set(row, cc);
    return row;
  }

  finish(): TraceColumns {
    return {
      action: this.action.seal(),
      addr: this.addr.seal(),
      size: this.size.seal(),
      stream: this.stream.seal(),
      timeUs: this.time.seal(),
      stack: this.stack.seal(),
      streams: this.streams.values,
      userMetadata: this.meta,
      compileContext: this.compile,
      otherActions: this.other,
    };
  }
}

/** Streams are raw cudaStream_t pointers; a run uses a handful, so rows store a small id. */
class StreamIds {
  readonly values: number[] = [];
  private readonly ids = new Map<number, number>();

  id(stream: number): number {
    let id = this.ids.get(stream);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(stream);
      this.ids.set(stream, id);
    }
    return id;
  }
}
