import type { DeviceAnalysis } from '../analysis/analyze';
import { recordedLimit } from '../diagnose/predicted';
import type { Snapshot } from '../snapshot/model';
import { applyAllocConf } from './confString';
import { configFrom } from './config';
import { NO_LIMIT, predictAllocator } from './predict';
import type { Limit } from './predict';
import { replayAllocator } from './replay';

/**
 * "What would another PYTORCH_CUDA_ALLOC_CONF do to this run?": the recorded figures (allocated
 * exact where the allocator replay is) beside each setting's predicted reserved peak, cached bytes
 * at that peak, and OOMs, under the limit given or the one the recorded OOM shows. Shared by
 * `headroom whatif` and the editor's summary page. Throws AllocConfError for a setting it cannot read.
 */
export interface WhatifSetting {
  allocConf: string;
  reservedPeak: number;
  allocatedPeak: number;
  /** Reserved but unallocated at the reserved peak, and its share of it. */
  cachedAtPeak: number;
  ooms: { index: number; bytes: number; recorded: boolean }[];
  /** Recorded OOMs whose request this setting serves. */
  avoided: number[];
}

export interface WhatifReport {
  device: number;
  limit: Limit | null;
  limitFrom: string;
  /** Where a memory fraction hid the limit: the range it lies in (the prediction uses its low end). */
  capRange?: [number, number];
  recorded: { requestedPeak: number; allocatedPeak: number; allocatedExact: boolean; replayNote?: string; reservedPeak: number; ooms: number };
  predicted: (WhatifSetting | { allocConf: string; unsupported: string })[];
}

export const WHATIF_CANNOT_KNOW = 'The prediction replays the recorded requests in their recorded order: it cannot know memory held outside PyTorch beyond the limit, nor how frees on other streams would be timed in another run (their order moves between identical runs).';

export function whatif(s: Snapshot, a: DeviceAnalysis, confs: readonly string[], given?: Limit): WhatifReport {
  const base = configFrom(s.allocatorSettings);
  const cfgs = confs.map((c) => applyAllocConf(base, c)); // throws before any work on a bad setting
  const exact = replayAllocator(s, a.device);
  const allocatedExact = exact.supported && exact.mismatchCount === 0;
  const oom = a.ooms[0];
  const fromOom = given || !oom ? undefined : recordedLimit(s, a, oom);
  const limit = given ?? fromOom?.limit ?? null;
  const limitFrom = given ? 'given' : fromOom ? `the recorded OOM at event #${oom!.index}` + (fromOom.range ? ' (a memory fraction refused it)' : ' (reserved + free then)') : 'none';
  const predicted = confs.map((allocConf, k) => {
    const p = predictAllocator(s, a.device, cfgs[k]!, limit ?? NO_LIMIT);
    return p.supported ? { allocConf, reservedPeak: p.reservedPeak, allocatedPeak: p.allocatedPeak, cachedAtPeak: p.cachedAtPeak, ooms: p.ooms, avoided: p.avoided } : { allocConf, unsupported: p.reason };
  });
  return {
    device: a.device,
    limit,
    limitFrom,
    ...(fromOom?.range ? { capRange: fromOom.range } : {}),
    recorded: {
      requestedPeak: a.replay.peak.requestedBytes,
      allocatedPeak: allocatedExact ? exact.allocatedPeak : a.replay.peak.allocatedBytes,
      allocatedExact,
      ...(allocatedExact ? {} : { replayNote: exact.supported ? `${exact.mismatchCount} of ${exact.allocations} placements differ from the trace: allocated is the estimate` : exact.reason }),
      reservedPeak: a.replay.reservedPeak.bytes,
      ooms: a.ooms.length,
    },
    predicted,
  };
}
