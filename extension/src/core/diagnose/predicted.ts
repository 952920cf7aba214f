import { applyAllocConf } from '../allocator/confString';
import { configFrom } from '../allocator/config';
import type { AllocConfig } from '../allocator/config';
import { predictAllocator } from '../allocator/predict';
import type { Prediction } from '../allocator/predict';
import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { OomEvent } from '../analysis/ooms';
import { formatBytes as b } from '../../shared/format';
import type { Snapshot } from '../snapshot/model';
import { recordedLimit } from './recordedLimit';
import type { Remedy } from './remedies';

/** Events the doctor's remedy predictions may replay in all, per OOM (about two seconds at 4M here: bench:replay). */
export const DOCTOR_REPLAY_EVENTS = 4_000_000;

/**
 * The doctor's allocator remedies replayed on this run (core/allocator/predict.ts): each says what
 * the setting is predicted to do to the reserved peak and to the OOM, and one the replay shows
 * cannot avoid the OOM is dropped. The limit is the one the recorded OOM shows (recordedLimit.ts);
 * where a memory fraction hid it, a remedy is judged at both ends of the range it lies in.
 */
export function predictedRemedies(
  s: Snapshot,
  a: DeviceAnalysis,
  oom: OomEvent,
  remedies: Remedy[],
  budget = DOCTOR_REPLAY_EVENTS,
): Remedy[] {
  const recorded = configFrom(s.allocatorSettings);
  const found = recordedLimit(s, a, oom);
  if (!found) return remedies;
  // Each (setting, limit) replayed once: the verdicts, the peaks and the search share them.
  const memo = new Map<AllocConfig, Map<number, Prediction>>();
  // The doctor answers where the snapshot opens: its replays share a bounded budget of events.
  let spent = 0;
  let overBudget = false;
  const predict = (cfg: AllocConfig, limit: number): Prediction | undefined => {
    let m = memo.get(cfg);
    if (!m) memo.set(cfg, (m = new Map()));
    let p = m.get(limit);
    if (!p) {
      if (spent + a.replay.n > budget) return void (overBudget = true);
      spent += a.replay.n;
      m.set(limit, (p = predictAllocator(s, a.device, cfg, { bytes: limit, cap: found.limit.cap })));
    }
    return p;
  };
  const fails = (cfg: AllocConfig, limit: number) => {
    const p = predict(cfg, limit);
    // Any OOM up to the recorded one: an earlier failure ends the run before it.
    return p?.supported ? p.ooms.some((o) => o.index <= oom.index) : undefined;
  };
  const limits = found.range ?? [found.limit.bytes];
  const out: Remedy[] = [];
  for (const r of remedies) {
    if (!r.allocConf) {
      out.push(r);
      continue;
    }
    const cfg = applyAllocConf(
      recorded,
      Object.entries(r.allocConf)
        .map(([k, v]) => `${k}:${v}`)
        .join(','),
    );
    const verdicts = limits.map((l) => fails(cfg, l));
    if (verdicts.some((v) => v === undefined)) {
      out.push(
        overBudget
          ? {
              ...r,
              effect: `${r.effect} (not predicted here: the replays would pass ${budget.toLocaleString('en-US')} events; headroom whatif predicts it)`,
            }
          : r,
      );
      continue;
    }
    // Cannot avoid the OOM even with the most room the run could have had: not a remedy here.
    if (verdicts.at(-1)) continue;
    let effect: string;
    if (!found.range) {
      const p = predict(cfg, limits[0]!);
      const base = predict(recorded, limits[0]!);
      const peaks = p?.supported && base?.supported ? `reserved peak ${b(p.reservedPeak)} instead of ${b(base.reservedPeak)}; ` : '';
      effect = `predicted on this run: ${peaks}the OOM at event #${oom.index} does not happen`;
    } else {
      // The least limit under which it passes, to 1/4096 of the range.
      let [lo, hi] = [limits[0]!, limits[1]!];
      if (!fails(cfg, lo)) hi = lo;
      for (let k = 0; k < 12 && hi - lo > 1; k++) {
        const mid = Math.floor((lo + hi) / 2);
        const v = fails(cfg, mid);
        if (v === undefined) break; // out of budget: the bound found so far
        if (v) lo = mid;
        else hi = mid;
      }
      effect = `predicted on this run: the OOM at event #${oom.index} does not happen if the memory fraction leaves PyTorch at least ${b(hi)} (the run had at least ${b(limits[0]!)}, under ${b(limits[1]! + 1)}; a snapshot does not record the fraction: headroom whatif --cap-gib)`;
    }
    out.push({ ...r, effect });
  }
  return out;
}
