import type { WhatifReport } from '../core/allocator/whatif';
import { limitText } from '../core/allocator/whatifView';
import { formatBytes as b } from '../core/format';
import { plain } from '../core/text';

/** `headroom whatif --json`: snake_case, bytes as integers, one `predicted` entry per --alloc-conf in order. */
export function whatifJson(r: WhatifReport) {
  return {
    device: r.device,
    limit_bytes: r.limit?.bytes ?? null,
    limit_is_cap: r.limit?.cap ?? null,
    limit_from: r.limitFrom,
    ...(r.capRange ? { cap_range_bytes: r.capRange } : {}),
    recorded: { requested_peak_bytes: r.recorded.requestedPeak, allocated_peak_bytes: r.recorded.allocatedPeak, allocated_exact: r.recorded.allocatedExact, ...(r.recorded.replayNote ? { replay_note: r.recorded.replayNote } : {}), reserved_peak_bytes: r.recorded.reservedPeak, ooms: r.recorded.ooms },
    predicted: r.predicted.map((x) =>
      'unsupported' in x
        ? { alloc_conf: x.allocConf, unsupported: x.unsupported }
        : { alloc_conf: x.allocConf, reserved_peak_bytes: x.reservedPeak, allocated_peak_bytes: x.allocatedPeak, cached_at_peak_bytes: x.cachedAtPeak, ooms: x.ooms.map((o) => ({ event: o.index, bytes: o.bytes, recorded: o.recorded })), avoided: x.avoided },
    ),
  };
}

const pctChange = (x: number, base: number) => (base > 0 ? `${x >= base ? '+' : '−'}${Math.abs(Math.round(((x - base) / base) * 100))} %` : 'n/a');
const share = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)} %` : '0 %');

/** The recorded figures, then one line per setting, wrapped for a terminal. */
export function whatifText(r: WhatifReport): string {
  const rec = r.recorded;
  const lines = [
    `device ${r.device}, recorded: requested peak ${b(rec.requestedPeak)}, allocated peak ${b(rec.allocatedPeak)}${rec.allocatedExact ? '' : ` (estimate: ${plain(rec.replayNote ?? '')})`}, reserved peak ${b(rec.reservedPeak)}${rec.ooms ? `, ${rec.ooms} OOM(s)` : ''}`,
    // The editor's words for the limit; here, with the flag that settles a hidden cap.
    `limit: ${limitText(r)}${r.capRange ? ' (--cap-gib to say which)' : ''}`,
  ];
  for (const x of r.predicted) {
    if ('unsupported' in x) {
      lines.push(`  ${plain(x.allocConf)}: not predicted: ${plain(x.unsupported)}`);
      continue;
    }
    const oom = x.ooms.length ? `OOM at event #${x.ooms.map((o) => o.index).join(', #')}` : 'no OOM';
    const avoided = x.avoided.length ? `; the recorded OOM at event #${x.avoided.join(', #')} does not happen` : '';
    lines.push(`  ${plain(x.allocConf)}: reserved peak ${b(x.reservedPeak)} (${pctChange(x.reservedPeak, rec.reservedPeak)}), ${b(x.cachedAtPeak)} of it cached (${share(x.cachedAtPeak, x.reservedPeak)}), allocated peak ${b(x.allocatedPeak)}, ${oom}${avoided}`);
  }
  return lines.join('\n') + '\n';
}
