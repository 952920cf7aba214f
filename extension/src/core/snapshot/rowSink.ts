import { Got } from '../pickle/entrySink';
import type { EntrySink } from '../pickle/entrySink';
import type { PyValue } from '../pickle/values';
import { Action, ActionCodes } from './actions';
import { countsIn } from './counts';
import type { TraceRows } from './rows';
import type { StackTable } from './stacks';

// The keys addPairs reads, in slot order; 'action' first, as PyTorch writes it.
const KEYS = ['action', 'addr', 'device_free', 'size', 'stream', 'time_us', 'frames', 'user_metadata', 'compile_context', 'forward_frames'];
const enum K {
  Action,
  Addr,
  DeviceFree,
  Size,
  Stream,
  Time,
  Frames,
  Meta,
  Compile,
  Forward,
}

/**
 * Trace entries from the entry decoder's slots straight into the rows. The common entry (a known
 * action, counts where counts go, a stack id or no frames) is checked here; any other goes through
 * TraceRows.add with the same values, so both paths keep the same rows and say the same errors.
 */
export class RowSink implements EntrySink {
  readonly keys = KEYS;
  readonly listSlot = K.Frames;
  private readonly codes = new ActionCodes();

  constructor(
    private readonly rows: TraceRows,
    private readonly stacks: StackTable,
  ) {}

  /** A frames list's stack id, as the dictValue hook makes it (normalize.ts). */
  list(items: PyValue[]): number | undefined {
    try {
      return this.stacks.intern(items);
    } catch {
      return undefined;
    }
  }

  entry(got: Uint8Array, nums: Float64Array, refs: readonly PyValue[]): number | undefined {
    const action = refs[K.Action];
    if (got[K.Action] !== Got.Ref || typeof action !== 'string') return this.general(got, nums, refs);
    const code = this.codes.code(action);
    // Numbers or nothing (None counts as nothing) where addPairs reads counts; an oom reads device_free.
    const g = got[K.Addr]! | got[K.Size]! | got[K.Stream]! | got[K.Time]! | got[K.Frames]!;
    if (code === Action.Oom || code === Action.Other || (g & Got.Ref) !== 0) return this.general(got, nums, refs);
    // The doubles stay in arrays (rows.next), no closure is made: each, allocated per entry, was a third of a load's garbage.
    const v = this.rows.next;
    v[0] = got[K.Addr] === Got.Num ? nums[K.Addr]! : 0;
    v[1] = nums[K.Size]!;
    v[2] = got[K.Stream] === Got.Num ? nums[K.Stream]! : 0;
    v[3] = got[K.Time] === Got.Num ? nums[K.Time]! : NaN;
    if (got[K.Size] !== Got.Num || !countsIn(v)) return this.general(got, nums, refs);
    // A stack id, an int32 from here (a double would be allocated for the call below).
    let stack = 0;
    if (got[K.Frames] === Got.Num) {
      const s = nums[K.Frames]!;
      if (!(s >= 0 && s < this.stacks.size && Math.floor(s) === s)) return this.general(got, nums, refs);
      stack = s | 0;
    }
    // forward_frames counts only as a list, and the decoder reads lists under 'frames' alone.
    const cc = got[K.Compile] === Got.Ref ? refs[K.Compile] : undefined;
    return this.rows.append(code, stack, action, got[K.Meta] === Got.Ref ? refs[K.Meta] : undefined, cc);
  }

  /** Anything else, as addPairs reads it: a row, or undefined (the VM's path then reports why). */
  private general(got: Uint8Array, nums: Float64Array, refs: readonly PyValue[]): number | undefined {
    const v = (k: K): PyValue | undefined => (got[k] === Got.Num ? nums[k] : got[k] === Got.Ref ? refs[k] : undefined);
    const r = this.rows.add(
      v(K.Action),
      v(K.Addr),
      v(K.DeviceFree),
      v(K.Size),
      v(K.Stream),
      v(K.Time),
      v(K.Frames),
      v(K.Meta),
      v(K.Compile),
      false,
      v(K.Forward),
    );
    return typeof r === 'number' ? r : undefined;
  }
}

/** An entry the VM read, from its key/value pairs on the pickle stack (no dict was built); undefined if no 'action'. */
export function addPairs(rows: TraceRows, vals: readonly PyValue[], from: number, to: number): number | string | undefined {
  let action, addr, deviceFree, size, stream, time, frames, meta, compile, forward: PyValue | undefined;
  for (let i = from; i < to; i += 2) {
    const v = vals[i + 1];
    switch (vals[i]) {
      case 'action':
        action = v;
        break;
      case 'addr':
        addr = v;
        break;
      case 'device_free':
        deviceFree = v;
        break;
      case 'size':
        size = v;
        break;
      case 'stream':
        stream = v;
        break;
      case 'time_us':
        time = v;
        break;
      case 'frames':
        frames = v;
        break;
      case 'user_metadata':
        meta = v;
        break;
      case 'compile_context':
        compile = v;
        break;
      case 'forward_frames':
        forward = v;
        break;
    }
  }
  if (action === undefined) return undefined;
  return rows.add(action, addr, deviceFree, size, stream, time, frames, meta, compile, false, forward);
}
