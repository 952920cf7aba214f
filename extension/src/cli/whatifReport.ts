import type { WhatifReport } from '../core/allocator/whatif';

/** `headroom whatif --json`: snake_case, bytes as integers, one `predicted` entry per --alloc-conf in order. */
export function whatifJson(r: WhatifReport) {
  return {
    device: r.device,
    limit_bytes: r.limit?.bytes ?? null,
    limit_is_cap: r.limit?.cap ?? null,
    limit_from: r.limitFrom,
    ...(r.capRange ? { cap_range_bytes: r.capRange } : {}),
    recorded: {
      requested_peak_bytes: r.recorded.requestedPeak,
      allocated_peak_bytes: r.recorded.allocatedPeak,
      allocated_exact: r.recorded.allocatedExact,
      ...(r.recorded.replayNote ? { replay_note: r.recorded.replayNote } : {}),
      reserved_peak_bytes: r.recorded.reservedPeak,
      ooms: r.recorded.ooms,
    },
    predicted: r.predicted.map((x) =>
      'unsupported' in x
        ? { alloc_conf: x.allocConf, unsupported: x.unsupported }
        : {
            alloc_conf: x.allocConf,
            reserved_peak_bytes: x.reservedPeak,
            allocated_peak_bytes: x.allocatedPeak,
            cached_at_peak_bytes: x.cachedAtPeak,
            ooms: x.ooms.map((o) => ({ event: o.index, bytes: o.bytes, recorded: o.recorded })),
            avoided: x.avoided,
          },
    ),
  };
}
