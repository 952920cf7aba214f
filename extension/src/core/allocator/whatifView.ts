import { formatBytes as b } from '../../shared/format';
import type { WhatifView } from '../protocol';
import type { WhatifContext, WhatifReport } from './whatif';
import { WHATIF_CANNOT_KNOW } from './whatif';

/** The settings the summary page predicts without being asked: the ones users ask about most. */
export const SUMMARY_SETTINGS = ['expandable_segments:True', 'max_split_size_mb:64', 'roundup_power2_divisions:4'];

export const limitText = (c: WhatifContext): string =>
  c.limit
    ? `${b(c.limit.bytes)} ${c.limit.cap ? 'per-process cap' : 'on the device'} (${c.limitFrom}${c.capRange ? `; the cap lies between ${b(c.capRange[0])} and ${b(c.capRange[1] + 1)}` : ''})`
    : c.limitFrom === 'none'
      ? 'none (the run did not run out of memory: each setting is predicted without one)'
      : `none (${c.limitFrom})`;

/** The summary page's what-if section from the shared context and the rows predicted so far. */
export function whatifView(
  c: WhatifContext,
  rows: readonly (WhatifReport['predicted'][number] | { allocConf: string; error: string })[],
  pending: readonly string[],
): WhatifView {
  return {
    recorded: {
      allocatedPeak: c.recorded.allocatedPeak,
      allocatedExact: c.recorded.allocatedExact,
      reservedPeak: c.recorded.reservedPeak,
      ooms: c.recorded.ooms,
    },
    limit: limitText(c),
    rows: rows.map((r) =>
      'error' in r
        ? r
        : 'unsupported' in r
          ? { allocConf: r.allocConf, error: r.unsupported }
          : {
              allocConf: r.allocConf,
              reservedPeak: r.reservedPeak,
              cachedAtPeak: r.cachedAtPeak,
              allocatedPeak: r.allocatedPeak,
              ooms: r.ooms.map((o) => o.index),
              avoided: r.avoided,
            },
    ),
    pending: [...pending],
    note: WHATIF_CANNOT_KNOW,
  };
}
