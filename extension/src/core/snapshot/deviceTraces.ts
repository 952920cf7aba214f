import { describePy, isDict } from '../pickle/values';
import type { PyValue } from '../pickle/values';
import type { DeviceTrace } from './model';
import type { TraceColumns, TraceRows } from './rows';
import type { Run } from '../pickle/rowRuns';
import { list, MAX_DEVICE, shape } from './shape';

/** @param runs the item lists that the reader kept as runs of row ids (pickle/rowRuns.ts), by index. */
export function normalizeTraces(
  items: PyValue[],
  rowTable: TraceRows,
  c: TraceColumns,
  runs: readonly (Run | undefined)[] = [],
): Map<number, DeviceTrace> {
  const claimed = new Uint8Array(rowTable.length);
  const traces = new Map<number, DeviceTrace>();
  const rowsOf = new TraceRowsReader(c, rowTable);
  items.forEach((t, device) => {
    if (device >= MAX_DEVICE) throw shape(`'device_traces' lists ${items.length} devices`);
    const r = runs[device];
    const entries = r ? [] : list(t, `device_traces[${device}]`);
    const n = r ? r.count : entries.length;
    const first = r ? unclaimedRun(r.first, n, claimed) : rowRun(entries, claimed);
    if (first >= 0) {
      // Consecutive rows not yet claimed (every real file): views, no per-entry checks.
      claimed.fill(1, first, first + n);
      traces.set(device, sliceRows(device, first, n, c));
      return;
    }
    // A row past the table or claimed twice: the errors below say which.
    if (r) for (let i = 0; i < n; i++) entries.push(r.first + i);
    const rows = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const row = rowsOf.resolve(entries[i]!, `device_traces[${device}][${i}]`);
      if (claimed[row]) throw shape(`device_traces[${device}][${i}] repeats an earlier trace entry`);
      claimed[row] = 1;
      rows[i] = row;
    }
    traces.set(device, pickRows(device, rows, c));
  });
  return traces;
}

/** The first row, when the items are rows run, run+1, … none claimed yet (no items: 0); else -1. */
function rowRun(items: PyValue[], claimed: Uint8Array): number {
  const first = items[0];
  const n = items.length;
  if (n === 0) return 0;
  if (typeof first !== 'number' || !Number.isInteger(first)) return -1;
  for (let i = 1; i < n; i++) if (items[i] !== first + i) return -1;
  return unclaimedRun(first, n, claimed);
}

/** `first`, if rows first…first+n-1 are in the table and none is claimed yet; else -1. */
function unclaimedRun(first: number, n: number, claimed: Uint8Array): number {
  if (first < 0 || first + n > claimed.length) return -1;
  const taken = claimed.indexOf(1, first);
  return taken === -1 || taken >= first + n ? first : -1;
}

/** Resolves list items to row ids; entries are rows already unless the reader's hook declined them. */
class TraceRowsReader {
  constructor(
    private readonly c: TraceColumns,
    private readonly rows: TraceRows,
  ) {}

  resolve(item: PyValue, where: string): number {
    if (typeof item === 'number' && Number.isInteger(item) && item >= 0 && item < this.c.action.length) return item;
    if (isDict(item) && 'action' in item) {
      // The hook declined this entry; say why, with its position.
      const why =
        this.rows.reason(item) ?? `action ${describePy(item.action)}, size ${describePy(item.size)}, addr ${describePy(item.addr)}`;
      throw shape(`${where} is a malformed trace entry: ${why}`);
    }
    throw shape(`${where} is ${describePy(item)}, not a trace entry`);
  }
}

/** Column views over rows first…first+n-1: no copy. */
function sliceRows(device: number, first: number, n: number, c: TraceColumns): DeviceTrace {
  const view = <T extends Float64Array | Int32Array | Uint8Array>(col: T): T => col.subarray(first, first + n) as T;
  return {
    device,
    length: n,
    action: view(c.action),
    addr: view(c.addr),
    size: view(c.size),
    stream: view(c.stream),
    timeUs: view(c.timeUs),
    stack: view(c.stack),
    firstRow: first,
  };
}

/** Columns copied from rows out of order (only a crafted file's: consecutive rows are rowRun's). */
function pickRows(device: number, rows: Int32Array, c: TraceColumns): DeviceTrace {
  const n = rows.length;
  const pick = <T extends Float64Array | Int32Array | Uint8Array>(col: T): T => {
    const out = new (col.constructor as { new (k: number): T })(n);
    for (let i = 0; i < n; i++) out[i] = col[rows[i]!]!;
    return out;
  };
  return {
    device,
    length: n,
    action: pick(c.action),
    addr: pick(c.addr),
    size: pick(c.size),
    stream: pick(c.stream),
    timeUs: pick(c.timeUs),
    stack: pick(c.stack),
    firstRow: 0,
    rows,
  };
}
