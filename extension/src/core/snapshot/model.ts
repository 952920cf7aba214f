import type { PyValue } from '../pickle/values';
import type { FrameTable } from './frames';
import type { StackTable } from './stacks';
import type { TraceColumns } from './rows';

export type BlockState = 'active_allocated' | 'active_pending_free' | 'inactive';

export interface Block {
  address: number;
  /** Bytes carved from the segment (a multiple of 512). */
  size: number;
  /** Bytes the user asked for; stale for inactive blocks, so only meaningful while active. */
  requestedSize: number;
  state: BlockState | string;
  /** Stack id of the allocation owning the block (0 = none). */
  stack: number;
}

export interface Segment {
  device: number;
  address: number;
  totalSize: number;
  allocatedSize: number;
  activeSize: number;
  requestedSize: number;
  stream: number;
  /** 'small' (≤1 MiB requests, 2 MiB segments) or 'large'. */
  type: string;
  /** [0,0] default pool; [0,N] a torch.cuda.MemPool; [N,0] a CUDA graph's private pool. */
  poolId: [number, number];
  expandable: boolean;
  stack: number;
  blocks: Block[];
}

export interface Annotation {
  stage: string;
  name: string;
  device: number;
  timeUs: number;
}

/** One device's trace: column views over the rows of that device, oldest first. */
export interface DeviceTrace {
  device: number;
  length: number;
  action: Uint8Array;
  addr: Float64Array;
  size: Float64Array;
  /** Stream id, an index into `Snapshot.columns.streams`. */
  stream: Int32Array;
  timeUs: Float64Array;
  stack: Int32Array;
  /**
   * Row ids in `Snapshot.columns` of this device's entries (keys of the sparse per-row maps):
   * `rowOf` reads them. Entry i is row firstRow + i, unless the rows are not contiguous (only a
   * crafted file): then `rows` lists them.
   */
  firstRow: number;
  rows?: Int32Array;
}

/** The row id in `Snapshot.columns` of a trace's entry i. */
export const rowOf = (t: DeviceTrace, i: number): number => (t.rows ? t.rows[i]! : t.firstRow + i);

export interface Snapshot {
  /** 'dict' for `_dump_snapshot` files; 'segments' for a bare segment list (memory_snapshot(), ≤1.13). */
  layout: 'dict' | 'segments';
  protocol: number;
  bytes: number;
  /** Devices that have a trace or segments, ascending. */
  devices: number[];
  traces: Map<number, DeviceTrace>;
  segments: Segment[];
  frames: FrameTable;
  stacks: StackTable;
  columns: TraceColumns;
  allocatorSettings: Record<string, PyValue> | null;
  annotations: Annotation[];
  /** Whether trace entries carry time_us (torch ≥ 2.2). */
  hasTimes: boolean;
  /** Things that were odd but not fatal, for the report. */
  warnings: string[];
}

export function traceOf(s: Snapshot, device: number): DeviceTrace {
  return s.traces.get(device) ?? emptyTrace(device);
}

export function emptyTrace(device: number): DeviceTrace {
  return {
    device,
    length: 0,
    action: new Uint8Array(0),
    addr: new Float64Array(0),
    size: new Float64Array(0),
    stream: new Int32Array(0),
    timeUs: new Float64Array(0),
    stack: new Int32Array(0),
    firstRow: 0,
  };
}
