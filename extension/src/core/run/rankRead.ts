import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { attributeAt } from '../analysis/attributeAt';
import type { Attribution } from '../analysis/attribution';
import { byModule, hasModuleScopes } from '../analysis/modules';
import type { Snapshot } from '../snapshot/model';
import type { RankRead } from './ranks';

/** What a rank's snapshot says for the cross-rank summary: its lines and modules (self bytes) at its peak, and its peaks. `atPeak`: the attribution at the peak, when already made. */
export function rankRead(s: Snapshot, a: DeviceAnalysis, atPeak: Attribution = attributeAt(s, a, a.replay.peak)): RankRead {
  const peak = a.replay.peak;
  const lines = atPeak.lines.map((l) => ({ file: l.file, line: l.line, name: l.name, bytes: l.selfBytes }));
  const modules = hasModuleScopes(s)
    ? byModule(s, a, peak.index)
        .modules.filter((m) => m.selfBytes > 0)
        .map((m) => ({ path: m.path, bytes: m.selfBytes }))
    : undefined;
  return { peak: peak.requestedBytes, reservedPeak: a.replay.reservedPeak.bytes, lines, ...(modules ? { modules } : {}) };
}
