import type { Snapshot } from './model';
import { hasTimes } from './columns';
import type { SnapshotBuilder } from './normalize';

/**
 * The trace read so far as a snapshot of its own, while the reader is still going: the rows are
 * views over the builder's columns (no copy), so it is valid until the next chunk is read. The
 * rows are taken as one device's (the first in the file: a multi-device file's later devices
 * come after it) and nothing of the end state is known yet: no segments, no settings.
 */
export function partialSnapshot(b: SnapshotBuilder, bytes: number): Snapshot {
  const columns = b.rows.finish(true);
  const n = columns.action.length;
  const trace = { device: 0, length: n, ...columns, firstRow: 0 };
  return {
    layout: 'dict',
    protocol: 0,
    bytes,
    devices: n ? [0] : [],
    traces: new Map(n ? [[0, trace]] : []),
    segments: [],
    frames: b.frames,
    stacks: b.stacks,
    columns,
    allocatorSettings: null,
    annotations: [],
    hasTimes: hasTimes(columns),
    warnings: [],
  };
}
