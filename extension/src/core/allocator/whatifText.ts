import { formatBytes as b } from '../../shared/format';
import { plain } from '../../shared/text';
import type { WhatifReport } from './whatif';
import { limitText } from './whatifView';

const pctChange = (x: number, base: number) =>
  base > 0 ? `${x >= base ? '+' : '−'}${Math.abs(Math.round(((x - base) / base) * 100))} %` : 'n/a';
const share = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)} %` : '0 %');

/** The recorded figures, then one line per setting: `headroom whatif` and the assistants' tool. `capHint`: how to give the cap where a fraction hid it. */
export function whatifText(r: WhatifReport, capHint = '--cap-gib'): string {
  const rec = r.recorded;
  const lines = [
    `device ${r.device}, recorded: requested peak ${b(rec.requestedPeak)}, allocated peak ${b(rec.allocatedPeak)}${rec.allocatedExact ? '' : ` (estimate: ${plain(rec.replayNote ?? '')})`}, reserved peak ${b(rec.reservedPeak)}${rec.ooms ? `, ${rec.ooms} OOM(s)` : ''}`,
    // The editor's words for the limit; here, with the flag that settles a hidden cap.
    `limit: ${limitText(r)}${r.capRange ? ` (${capHint} to say which)` : ''}`,
  ];
  for (const x of r.predicted) {
    if ('unsupported' in x) {
      lines.push(`  ${plain(x.allocConf)}: not predicted: ${plain(x.unsupported)}`);
      continue;
    }
    const oom = x.ooms.length ? `OOM at event #${x.ooms.map((o) => o.index).join(', #')}` : 'no OOM';
    const avoided = x.avoided.length ? `; the recorded OOM at event #${x.avoided.join(', #')} does not happen` : '';
    lines.push(
      `  ${plain(x.allocConf)}: reserved peak ${b(x.reservedPeak)} (${pctChange(x.reservedPeak, rec.reservedPeak)}), ${b(x.cachedAtPeak)} of it cached (${share(x.cachedAtPeak, x.reservedPeak)}), allocated peak ${b(x.allocatedPeak)}, ${oom}${avoided}`,
    );
  }
  return lines.join('\n') + '\n';
}
