import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { deviceFactsBeside } from '../run/deviceFacts';
import type { Snapshot } from '../snapshot/model';
import { plain } from '../../shared/text';
import { diagnoseSnapshot } from './oom';
import { oomJson } from './oomJson';
import { renderDiagnosis } from './oomText';

/**
 * Trace events and tensors the doctor may walk in all, across a snapshot's OOMs: each diagnosis
 * reads the device's whole trace at its instant, so 20,000 OOMs would cost 20,000 walks (issue 39).
 * A real OOM snapshot has one or a few; the first is always diagnosed.
 */
export const DOCTOR_EVENTS = 20_000_000;

/** The first OOMs whose diagnoses fit the budget (`cost`: what one walks), and how many are left out. */
export function oomsWithin<T>(ooms: readonly T[], cost: (o: T) => number, budget = DOCTOR_EVENTS): { kept: T[]; left: number } {
  const kept: T[] = [];
  let spent = 0;
  for (const o of ooms) {
    const n = Math.max(1, cost(o));
    if (kept.length && spent + n > budget) break;
    spent += n;
    kept.push(o);
  }
  return { kept, left: ooms.length - kept.length };
}

/** What one diagnosis walks: the device's trace and its tensors. */
export const diagnosisCost = (a: DeviceAnalysis): number => a.replay.n + a.replay.elements.count;

/**
 * `headroom check SNAPSHOT --explain-oom [--json]`: every OOM of every device, in order, as text or
 * JSON ({"ooms": [...]}, with "more": N when the budget left N out).
 */
export function explainSnapshotOoms(s: Snapshot, path: string, analysis: (d: number) => DeviceAnalysis, json: boolean): string {
  const all = s.devices.flatMap((d) => {
    const a = analysis(d);
    const facts = deviceFactsBeside(path, d);
    return a.ooms.map((o) => ({ a, o, facts }));
  });
  const { kept, left } = oomsWithin(all, ({ a }) => diagnosisCost(a));
  const diagnosed = kept.map(({ a, o, facts }) => ({ a, o, d: diagnoseSnapshot(s, a, o, facts) }));
  if (json)
    return `${JSON.stringify(
      { ooms: diagnosed.map(({ a, o, d }) => ({ device: a.device, event: o.index, ...oomJson(d) })), ...(left ? { more: left } : {}) },
      null,
      1,
    )}\n`;
  if (!all.length) return `no OOM recorded in ${plain(path)}\n`;
  const text = diagnosed.map(({ a, o, d }) => `device ${a.device}, event #${o.index}: ${renderDiagnosis(d)}`);
  if (left) text.push(`${left} more OOMs not diagnosed: the first ${kept.length} took the doctor's budget (each reads the whole trace)\n`);
  return text.join('');
}
