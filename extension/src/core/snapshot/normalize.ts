import { SnapshotError } from '../errors';
import type { SealHooks } from '../pickle/stack';
import { describePy, isDict } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { hasTimes } from './columns';
import { FrameTable } from './frames';
import { StackTable } from './stacks';
import type { Annotation, Block, DeviceTrace, Segment, Snapshot } from './model';
import { toCount, TraceRows } from './rows';
import type { TraceColumns } from './rows';

/** Interning tables shared by the reader's hooks and the normalizer. */
export class SnapshotBuilder {
  readonly frames = new FrameTable();
  readonly stacks = new StackTable(this.frames);
  readonly rows: TraceRows;

  /** @param maxRows the trace-entries limit (core/limits.ts). */
  constructor(bytesHint = 0, maxRows = Infinity) {
    this.rows = new TraceRows(this.stacks, bytesHint, maxRows);
  }

  /** Hooks for the pickle reader: entries become rows and frame lists become stack ids on arrival. */
  hooks(): SealHooks {
    return {
      listItem: (item) => {
        if (!('action' in item)) return undefined;
        const r = this.rows.tryAdd(item);
        return typeof r === 'number' ? r : undefined;
      },
      freshDict: (vals, from, to) => {
        const r = this.rows.tryAddPairs(vals, from, to);
        return typeof r === 'number' ? r : undefined;
      },
      dictValue: (key, list) => {
        if (key !== 'frames') return undefined;
        try {
          return this.stacks.intern(list);
        } catch {
          return undefined; // the normalizer reports it with context
        }
      },
    };
  }
}

const shape = (what: string): SnapshotError => new SnapshotError('wrong-shape', `not a PyTorch memory snapshot: ${what}`);

/** A size, address or id: a non-negative integer below 2^53 (never NaN, a float or 10**30). */
function num(d: PyDict, key: string, where: string, fallback?: number): number {
  const v = toCount(d[key]);
  if (v !== undefined) return v;
  if (fallback !== undefined && (d[key] === undefined || d[key] === null)) return fallback;
  const raw = d[key];
  const shown = typeof raw === 'number' || typeof raw === 'bigint' ? ` (${String(raw).slice(0, 40)})` : '';
  throw shape(`${where} has ${key} = ${describePy(raw)}${shown}, expected a non-negative integer`);
}

/** Device indices are small; a crafted 10**15 would make per-device arrays and loops explode. */
const MAX_DEVICE = 1 << 16;

function deviceOf(d: PyDict, where: string): number {
  const v = num(d, 'device', where, 0);
  if (v >= MAX_DEVICE) throw shape(`${where} has device = ${v}, not a CUDA device index`);
  return v;
}

function list(v: PyValue | undefined, where: string): PyValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw shape(`${where} is ${describePy(v)}, not a list`);
  return v;
}

/** Turns the reader's output into the one model, whatever torch version (1.13–2.11+) wrote it. */
export function normalize(value: PyValue, b: SnapshotBuilder, meta: { protocol: number; bytes: number }): Snapshot {
  const warnings: string[] = [];
  let segmentsValue: PyValue | undefined;
  let tracesValue: PyValue | undefined;
  let settings: Record<string, PyValue> | null = null;
  let annotationsValue: PyValue | undefined;
  let layout: Snapshot['layout'];
  if (Array.isArray(value)) {
    layout = 'segments';
    segmentsValue = value;
  } else if (isDict(value)) {
    layout = 'dict';
    if (!('segments' in value) && !('device_traces' in value) && !('traces' in value)) {
      const keys = Object.keys(value).slice(0, 6).join(', ');
      throw shape(`a dict without 'segments' or 'device_traces'${keys ? ` (its keys: ${keys})` : ''}`);
    }
    segmentsValue = value.segments;
    tracesValue = value.device_traces ?? value.traces;
    const s = value.allocator_settings;
    if (isDict(s)) settings = s;
    annotationsValue = value.external_annotations;
  } else {
    throw shape(`top level is ${describePy(value)}`);
  }

  const segments = normalizeSegments(list(segmentsValue, "'segments'"), b);
  const columns = b.rows.finish();
  const traces = normalizeTraces(list(tracesValue, "'device_traces'"), b.rows, columns);
  const annotations = normalizeAnnotations(list(annotationsValue, "'external_annotations'"), warnings);

  const devices = new Set<number>();
  for (const [d, t] of traces) if (t.length > 0) devices.add(d);
  for (const s of segments) devices.add(s.device);
  return {
    layout,
    protocol: meta.protocol,
    bytes: meta.bytes,
    devices: [...devices].sort((x, y) => x - y),
    traces,
    segments,
    frames: b.frames,
    stacks: b.stacks,
    columns,
    allocatorSettings: settings,
    annotations,
    hasTimes: hasTimes(columns),
    warnings,
  };
}

function stackOf(v: PyValue | undefined, b: SnapshotBuilder, where: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < b.stacks.size) return v; // the hook's stack id
  if (Array.isArray(v)) return b.stacks.intern(v);
  throw shape(`${where} has frames = ${describePy(v)}, not a list of frames`);
}

function normalizeSegments(items: PyValue[], b: SnapshotBuilder): Segment[] {
  const seen = new Set<object>();
  const out: Segment[] = [];
  items.forEach((raw, i) => {
    const where = `segment ${i}`;
    if (!isDict(raw)) throw shape(`${where} is ${describePy(raw)}, not a dict`);
    const blocksRaw = list(raw.blocks, `${where}'s blocks`);
    // Shared segments or block lists can only come from a crafted file (a "bomb").
    if (seen.has(raw) || seen.has(blocksRaw)) throw shape(`${where} repeats an earlier segment object`);
    seen.add(raw);
    seen.add(blocksRaw);
    const address = num(raw, 'address', where);
    let addr = address;
    const blocks: Block[] = blocksRaw.map((br, j) => {
      const bw = `${where}, block ${j}`;
      if (!isDict(br)) throw shape(`${bw} is ${describePy(br)}, not a dict`);
      const size = num(br, 'size', bw);
      let stack = stackOf(br.frames, b, bw);
      let requested = br.requested_size === undefined ? undefined : num(br, 'requested_size', bw);
      const history = br.history; // torch 1.13: the block's own allocation is history[0]
      if (requested === undefined && Array.isArray(history) && isDict(history[0])) {
        requested = toCount(history[0].real_size);
        if (stack === 0) stack = stackOf(history[0].frames, b, bw);
      }
      const block: Block = {
        address: num(br, 'address', bw, addr),
        size,
        requestedSize: requested ?? size,
        state: typeof br.state === 'string' ? br.state : 'inactive',
        stack,
      };
      addr += size;
      return block;
    });
    // What torch would have written, for files that leave the totals out.
    let total = 0;
    let allocated = 0;
    let active = 0;
    let requested = 0;
    for (const bl of blocks) {
      total += bl.size;
      if (bl.state === 'active_allocated') allocated += bl.size;
      if (bl.state !== 'inactive') {
        active += bl.size;
        requested += bl.requestedSize;
      }
    }
    const pool = raw.segment_pool_id;
    out.push({
      device: deviceOf(raw, where),
      address,
      totalSize: num(raw, 'total_size', where, total),
      allocatedSize: num(raw, 'allocated_size', where, allocated),
      activeSize: num(raw, 'active_size', where, active),
      requestedSize: num(raw, 'requested_size', where, requested),
      stream: num(raw, 'stream', where, 0),
      type: typeof raw.segment_type === 'string' ? raw.segment_type : 'large',
      poolId: Array.isArray(pool) && pool.length === 2 ? [toCount(pool[0]) ?? 0, toCount(pool[1]) ?? 0] : [0, 0],
      expandable: raw.is_expandable === true,
      stack: stackOf(raw.frames, b, where),
      blocks,
    });
  });
  return out;
}

function normalizeTraces(items: PyValue[], rowTable: TraceRows, c: TraceColumns): Map<number, DeviceTrace> {
  const claimed = new Uint8Array(rowTable.length);
  const traces = new Map<number, DeviceTrace>();
  const rowsOf = new TraceRowsReader(c, rowTable);
  items.forEach((t, device) => {
    if (device >= MAX_DEVICE) throw shape(`'device_traces' lists ${items.length} devices`);
    const entries = list(t, `device_traces[${device}]`);
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

function normalizeAnnotations(items: PyValue[], warnings: string[]): Annotation[] {
  const out: Annotation[] = [];
  let skipped = 0;
  for (const a of items) {
    const device = isDict(a) ? (a.device === undefined || a.device === null ? 0 : toCount(a.device)) : undefined;
    const time = isDict(a) ? toCount(a.time_us) : undefined;
    if (
      !isDict(a) ||
      typeof a.name !== 'string' ||
      device === undefined ||
      device >= MAX_DEVICE ||
      (time === undefined && a.time_us !== undefined && a.time_us !== null)
    ) {
      skipped++;
      continue;
    }
    out.push({
      stage: typeof a.stage === 'string' ? a.stage : '',
      name: a.name,
      device,
      timeUs: time ?? NaN,
    });
  }
  if (skipped) warnings.push(`${skipped} external annotations were not understood and were skipped`);
  return out;
}
