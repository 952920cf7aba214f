import type { SealHooks } from '../pickle/stack';
import { describePy, isDict } from '../pickle/values';
import type { PyValue } from '../pickle/values';
import { hasTimes } from './columns';
import { FrameTable } from './frames';
import { StackTable } from './stacks';
import type { Annotation, Block, Segment, Snapshot } from './model';
import { addPairs, RowSink } from './rowSink';
import { toCount } from './counts';
import { TraceRows } from './rows';
import { normalizeTraces } from './deviceTraces';
import { RowRuns } from '../pickle/rowRuns';
import { deviceOf, list, MAX_DEVICE, num, shape } from './shape';

/** Interning tables shared by the reader's hooks and the normalizer. */
export class SnapshotBuilder {
  readonly frames = new FrameTable();
  readonly stacks = new StackTable(this.frames);
  readonly rows: TraceRows;
  /** The trace lists, kept as runs of row ids while read (pickle/rowRuns.ts). */
  readonly runs = new RowRuns();

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
      entries: new RowSink(this.rows, this.stacks),
      runs: this.runs,
      freshDict: (vals, from, to) => {
        const r = addPairs(this.rows, vals, from, to);
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

  const runs = b.runs.take(tracesValue, [segmentsValue, annotationsValue]);
  const segments = normalizeSegments(list(segmentsValue, "'segments'"), b);
  const columns = b.rows.finish();
  const traces = normalizeTraces(list(tracesValue, "'device_traces'"), b.rows, columns, runs);
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
