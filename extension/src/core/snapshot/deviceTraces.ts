import { describePy, isDict } from '../pickle/values';
import type { PyValue } from '../pickle/values';
import type { DeviceTrace } from './model';
import type { TraceColumns, TraceRows } from './rows';
import { list, MAX_DEVICE, shape } from './shape';

export function normalizeTraces(items: PyValue[], rowTable: TraceRows, c: TraceColumns): Map<number, DeviceTrace> {
  const claimed = new Uint8Array(rowTable.length);
  const traces = new Map<number, DeviceTrace>();
  const rowsOf = new TraceRowsReader(c, rowTable);
  items.forEach((t, device) => {
    if (device >= MAX_DEVICE) throw shape(`'device_traces' lists ${items.length} devices`);
    const entries = list(t, `device_traces[${device}]`);
    const run = rowRun(entries, claimed);
    if (run >= 0) {
      // Consecutive rows not yet claimed (every real file): views, no per-entry checks.
      const rows = new Int32Array(entries.length);
      for (let i = 0; i < rows.length; i++) rows[i] = run + i;
      claimed.fill(1, run, run + rows.length);
      traces.set(device, sliceRows(device, rows, c));
      return;
    }
    const rows = new Int32Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const r = rowsOf.resolve(entries[i]!, `device_traces[${device}][${i}]`);
      if (claimed[r]) throw shape(`device_traces[${device}][${i}] repeats an earlier trace entry`);
      claimed[r] = 1;
      rows[i] = r;
    }
    traces.set(device, sliceRows(device, rows, c));
  });
  return traces;
}

/** The first row, when the items are rows run, run+1, … none claimed yet; else -1. */
function rowRun(items: PyValue[], claimed: Uint8Array): number {
  const first = items[0];
  const n = items.length;
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 0 || first + n > claimed.length) return -1;
  for (let i = 1; i < n; i++) if (items[i] !== first + i) return -1;
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

/** Column views for one device: zero-copy when its rows are contiguous (always, for real files). */
function sliceRows(device: number, rows: Int32Array, c: TraceColumns): DeviceTrace {
  const n = rows.length;
  let contiguous = true;
  for (let i = 1; i < n; i++) {
    if (rows[i] !== rows[0]! + i) {
      contiguous = false;
      break;
    }
  }
  const pick = <T extends Float64Array | Int32Array | Uint8Array>(col: T): T => {
    if (n === 0) return col.subarray(0, 0) as T;
    if (contiguous) return col.subarray(rows[0]!, rows[0]! + n) as T;
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
    rows,
  };
}
