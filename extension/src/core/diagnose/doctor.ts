import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { DoctorJson } from '../protocol';
import type { DeviceFacts } from '../run/deviceFacts';
import type { Snapshot } from '../snapshot/model';
import { diagnosisCost, oomsWithin } from './explainSnapshot';
import { keepsPerIteration } from './leakText';
import { describeLeak, detectLeaks } from './leaks';
import { diagnoseSnapshot, poolRow } from './oom';

/** What the summary page shows of the doctor for one device: every OOM's diagnosis, and the leak verdict. */
export function doctorFor(s: Snapshot, a: DeviceAnalysis, device: DeviceFacts = {}): DoctorJson {
  const leak = detectLeaks(s, a);
  return {
    // The first OOMs within the doctor's budget: 20,000 would hold the editor for minutes (issue 39).
    ooms: oomsWithin(a.ooms, () => diagnosisCost(a)).kept.map((o) => {
      const d = diagnoseSnapshot(s, a, o, device);
      const pools = d.pools.map(poolRow);
      return {
        kind: d.kind,
        why: d.why,
        pools,
        request: d.requestBytes,
        segments: d.segmentMap ?? { rows: [], total: 0 },
        remedies: d.remedies,
      };
    }),
    leak:
      leak.basis === 'none'
        ? null
        : {
            leaking: leak.leaking,
            summary: describeLeak(leak).slice(0, 1),
            lines: leak.lines.slice(0, 5).map((l) => ({
              file: l.file,
              line: l.line,
              name: l.name,
              keeps: `keeps ${keepsPerIteration(l)}, created there and never freed`,
            })),
          },
  };
}
