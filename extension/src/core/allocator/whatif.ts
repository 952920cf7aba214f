import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { recordedLimit } from '../diagnose/recordedLimit';
import type { Snapshot } from '../snapshot/model';
import { applyAllocConf } from './confString';
import { configFrom } from './config';
import { NO_LIMIT } from './limit';
import type { Limit } from './limit';
import { predictAllocator } from './predict';

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
  recorded: {
    requestedPeak: number;
    allocatedPeak: number;
    allocatedExact: boolean;
    replayNote?: string;
    reservedPeak: number;
    ooms: number;
  };
  predicted: (WhatifSetting | { allocConf: string; unsupported: string })[];
}

export const WHATIF_CANNOT_KNOW =
  'The prediction replays the recorded requests in their recorded order: it cannot know memory held outside PyTorch beyond the limit, nor how frees on other streams would be timed in another run (their order moves between identical runs).';

/** The recorded figures and the limit the predictions assume: computed once, shared by every setting. */
export type WhatifContext = Omit<WhatifReport, 'predicted'>;

/** `readOom`: false to skip reading the limit from the recorded OOM (a replay of its own). */
export function whatifContext(s: Snapshot, a: DeviceAnalysis, given?: Limit, readOom = true): WhatifContext {
  const exact = a.allocated;
  const oom = a.ooms[0];
  const fromOom = given || !oom || !readOom ? undefined : recordedLimit(s, a, oom);
  const limitFrom = given
    ? 'given'
    : fromOom
      ? `the recorded OOM at event #${oom!.index}` + (fromOom.range ? ' (a memory fraction refused it)' : ' (reserved + free then)')
      : oom && !readOom
        ? 'not read here'
        : 'none';
  return {
    device: a.device,
    limit: given ?? fromOom?.limit ?? null,
    limitFrom,
    ...(fromOom?.range ? { capRange: fromOom.range } : {}),
    recorded: {
      requestedPeak: a.replay.peak.requestedBytes,
      allocatedPeak: exact.exact ? exact.peak : a.replay.peak.allocatedBytes,
      allocatedExact: exact.exact,
      ...(exact.exact ? {} : { replayNote: exact.why }),
      reservedPeak: a.replay.reservedPeak.bytes,
      ooms: a.ooms.length,
    },
  };
}

/** One setting's prediction. Throws AllocConfError for a setting it cannot read. */
export function predictSetting(s: Snapshot, a: DeviceAnalysis, ctx: WhatifContext, allocConf: string): WhatifReport['predicted'][number] {
  const p = predictAllocator(s, a.device, applyAllocConf(configFrom(s.allocatorSettings), allocConf), ctx.limit ?? NO_LIMIT);
  return p.supported
    ? {
        allocConf,
        reservedPeak: p.reservedPeak,
        allocatedPeak: p.allocatedPeak,
        cachedAtPeak: p.cachedAtPeak,
        ooms: p.ooms,
        avoided: p.avoided,
      }
    : { allocConf, unsupported: p.reason };
}

export function whatif(s: Snapshot, a: DeviceAnalysis, confs: readonly string[], given?: Limit): WhatifReport {
  const base = configFrom(s.allocatorSettings);
  for (const c of confs) applyAllocConf(base, c); // a bad setting throws before any work
  const ctx = whatifContext(s, a, given);
  return { ...ctx, predicted: confs.map((c) => predictSetting(s, a, ctx, c)) };
}
