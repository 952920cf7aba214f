import type { DeviceAnalysis } from '../analysis/analyze';
import { attributeAt } from '../analysis/analyze';
import { byModule, hasModuleScopes } from '../analysis/modules';
import type { Snapshot } from '../snapshot/model';
import type { RankRead } from './ranks';

/** What a rank's snapshot says for the cross-rank summary: its lines and modules (self bytes) at its peak, and its peaks. */
export function rankRead(s: Snapshot, a: DeviceAnalysis): RankRead {
  const peak = a.replay.peak;
  const lines = attributeAt(s, a, peak).lines.map((l) => ({ file: l.file, line: l.line, name: l.name, bytes: l.selfBytes }));
  const modules = hasModuleScopes(s) ? byModule(s, a, peak.index).modules.filter((m) => m.selfBytes > 0).map((m) => ({ path: m.path, bytes: m.selfBytes })) : undefined;
  return { peak: peak.requestedBytes, reservedPeak: a.replay.reservedPeak.bytes, lines, ...(modules ? { modules } : {}) };
}
