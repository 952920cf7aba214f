import { applyAllocConf } from '../allocator/confString';
import { configFrom } from '../allocator/config';
import type { AllocConfig } from '../allocator/config';
import { predictAllocator, segmentSize } from '../allocator/predict';
import type { Limit, Prediction } from '../allocator/predict';
import type { DeviceAnalysis } from '../analysis/analyze';
import { reservedAt } from '../analysis/replay';
import type { OomEvent } from '../analysis/ooms';
import { formatBytes as b } from '../format';
import type { Snapshot } from '../snapshot/model';
import type { Remedy } from './remedies';

/**
 * The doctor's allocator remedies replayed on this run (core/allocator/predict.ts): each says what
 * the setting is predicted to do to the reserved peak and to the OOM, and one the replay shows
 * cannot avoid the OOM is dropped. The memory PyTorch could take is reserved + free at the OOM;
 * where the recorded settings do not fail there under that limit, a memory fraction (which no
 * snapshot records) refused it, and the limit lies between the reserve before the request and the
 * reserve it asked for: a remedy is then judged at both ends.
 */
/** What PyTorch could have had at a recorded OOM, without a memory fraction: its reserve then plus the device's free bytes. */
export const deviceLimitAt = (a: DeviceAnalysis, oom: OomEvent): number => reservedAt(a.replay, oom.index) + oom.deviceFreeBytes;

/**
 * The limit a recorded OOM shows: the device's (reserved + free then) where the recorded settings
 * fail there too; else a memory fraction refused the request, and the cap lies between the most
 * the run had reserved by then and that reserve plus the segment it asked for.
 */
export function recordedLimit(s: Snapshot, a: DeviceAnalysis, oom: OomEvent): { limit: Limit; range?: [number, number] } | undefined {
  const device = deviceLimitAt(a, oom);
  const p = predictAllocator(s, a.device, configFrom(s.allocatorSettings), { bytes: device, cap: false });
  if (!p.supported) return undefined;
  if (p.ooms.some((o) => o.index <= oom.index)) return { limit: { bytes: device, cap: false } };
  const before = reservedAt(a.replay, oom.index);
  let most = Math.max(before, a.replay.start.reservedBytes);
  const steps = a.replay.reservedSteps;
  for (let k = 0; k < steps.index.length && steps.index[k]! < oom.index; k++) most = Math.max(most, steps.bytes[k]!);
  const range: [number, number] = [most, Math.max(most, before + segmentSize(oom.requestedBytes) - 1)];
  return { limit: { bytes: range[0], cap: true }, range };
}

export function predictedRemedies(s: Snapshot, a: DeviceAnalysis, oom: OomEvent, remedies: Remedy[]): Remedy[] {
  const recorded = configFrom(s.allocatorSettings);
  const found = recordedLimit(s, a, oom);
  if (!found) return remedies;
  // Each (setting, limit) replayed once: the verdicts, the peaks and the search share them.
  const memo = new Map<AllocConfig, Map<number, Prediction>>();
  const predict = (cfg: AllocConfig, limit: number): Prediction => {
    let m = memo.get(cfg);
    if (!m) memo.set(cfg, (m = new Map()));
    let p = m.get(limit);
    if (!p) m.set(limit, (p = predictAllocator(s, a.device, cfg, { bytes: limit, cap: found.limit.cap })));
    return p;
  };
  const fails = (cfg: AllocConfig, limit: number) => {
    const p = predict(cfg, limit);
    // Any OOM up to the recorded one: an earlier failure ends the run before it.
    return p.supported ? p.ooms.some((o) => o.index <= oom.index) : undefined;
  };
  const limits = found.range ?? [found.limit.bytes];
  const out: Remedy[] = [];
  for (const r of remedies) {
    if (!r.allocConf) {
      out.push(r);
      continue;
    }
    const cfg = applyAllocConf(recorded, Object.entries(r.allocConf).map(([k, v]) => `${k}:${v}`).join(','));
    const verdicts = limits.map((l) => fails(cfg, l));
    if (verdicts.some((v) => v === undefined)) {
      out.push(r);
      continue;
    }
    // Cannot avoid the OOM even with the most room the run could have had: not a remedy here.
    if (verdicts.at(-1)) continue;
    let effect: string;
    if (!found.range) {
      const p = predict(cfg, limits[0]!);
      const base = predict(recorded, limits[0]!);
      const peaks = p.supported && base.supported ? `reserved peak ${b(p.reservedPeak)} instead of ${b(base.reservedPeak)}; ` : '';
      effect = `predicted on this run: ${peaks}the OOM at event #${oom.index} does not happen`;
    } else {
      // The least limit under which it passes, to 1/4096 of the range.
      let [lo, hi] = [limits[0]!, limits[1]!];
      if (!fails(cfg, lo)) hi = lo;
      for (let k = 0; k < 12 && hi - lo > 1; k++) {
        const mid = Math.floor((lo + hi) / 2);
        if (fails(cfg, mid)) lo = mid;
        else hi = mid;
      }
      effect = `predicted on this run: the OOM at event #${oom.index} does not happen if the memory fraction leaves PyTorch at least ${b(hi)} (the run had at least ${b(limits[0]!)}, under ${b(limits[1]! + 1)}; a snapshot does not record the fraction: headroom whatif --cap-gib)`;
    }
    out.push({ ...r, effect });
  }
  return out;
}
