import { formatBytes } from '../../shared/format';
import { processLabel } from './processes';
import type { Sample } from './protocol';

/** Live figures of a run, across its ranks and devices, for a status line or a status bar item. */
export interface LiveStatus {
  /** The rank/device with the most reserved memory ("the worst rank"). */
  worst: Sample & { rank: number | null; pid?: number };
  streams: number;
  /** Highest max_allocated seen on any rank. */
  peakAllocated: number;
  /** Why the figures deserve attention, if they do. */
  warnings: string[];
}

const GiB = 2 ** 30;

/** Reserved-but-unallocated worth a warning: over 1 GiB and over a third of what is reserved. */
export function fragmentationWarning(s: Sample): string | undefined {
  const idle = s.reserved - s.allocated;
  if (idle > GiB && idle > s.reserved / 3) return `${formatBytes(idle)} reserved but unallocated (fragmentation or cached blocks)`;
  return undefined;
}

export function liveStatus(latest: Iterable<{ rank: number | null; pid?: number; sample: Sample }>): LiveStatus | undefined {
  let worst: (Sample & { rank: number | null; pid?: number }) | undefined;
  let streams = 0;
  let peak = 0;
  const warnings = new Set<string>();
  for (const { rank, pid, sample } of latest) {
    streams++;
    peak = Math.max(peak, sample.max_allocated);
    if (!worst || sample.reserved > worst.reserved) worst = { ...sample, rank, ...(pid !== undefined ? { pid } : {}) };
    const frag = fragmentationWarning(sample);
    if (frag) warnings.add(frag);
    if (sample.ooms > 0) warnings.add(`${sample.ooms} CUDA OOM${sample.ooms > 1 ? 's' : ''} so far`);
    if (sample.retries > 0)
      warnings.add(`${sample.retries} cudaMalloc retr${sample.retries > 1 ? 'ies' : 'y'} (the cache was flushed to make room)`);
  }
  return worst ? { worst, streams, peakAllocated: peak, warnings: [...warnings] } : undefined;
}

/** GiB with 2 decimals (1 from 10 GiB, 0 from 100 GiB), the status bar's unit. */
export const gib = (n: number): string => (n / GiB).toFixed(n >= 100 * GiB ? 0 : n >= 10 * GiB ? 1 : 2);

/** "12.3 / 15.0 GiB ▲13.1" (allocated / reserved, peak allocated); "rank 1" or "pid 42" when several processes report. */
export function statusText(st: LiveStatus): string {
  const w = st.worst;
  const label = st.streams > 1 ? processLabel(w) : '';
  const who = label ? `${label} ` : '';
  return `${who}${gib(w.allocated)} / ${gib(w.reserved)} GiB ▲${gib(st.peakAllocated)}`;
}
