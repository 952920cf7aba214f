import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { OomEvent } from '../analysis/ooms';
import { deviceFactsBeside } from '../run/deviceFacts';
import type { Snapshot } from '../snapshot/model';
import { jsonText, plain } from '../../shared/text';
import { diagnoseSnapshot } from './oom';
import type { OomDiagnosis } from './oom';
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

/** Said where the budget left OOMs out (the CLI, the MCP tool and the editor's log alike). */
export const notDiagnosedNote = (left: number, kept: number) =>
  `${left} more OOMs not diagnosed: the first ${kept} took the doctor's budget (each reads the whole trace)`;

/**
 * One device's OOMs diagnosed within the budget (the MCP tool, the editor): how many were left out,
 * and the note that says so (undefined when none was).
 */
export function diagnoseWithin(
  s: Snapshot,
  a: DeviceAnalysis,
  path: string,
): { diagnosed: { o: OomEvent; d: OomDiagnosis }[]; left: number; note: string | undefined } {
  const { kept, left } = oomsWithin(a.ooms, () => diagnosisCost(a));
  const facts = deviceFactsBeside(path, a.device);
  const diagnosed = kept.map((o) => ({ o, d: diagnoseSnapshot(s, a, o, facts) }));
  return { diagnosed, left, note: left ? notDiagnosedNote(left, kept.length) : undefined };
}

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
    return `${jsonText({
      ooms: diagnosed.map(({ a, o, d }) => ({ device: a.device, event: o.index, ...oomJson(d) })),
      ...(left ? { more: left } : {}),
    })}\n`;
  if (!all.length) return `no OOM recorded in ${plain(path)}\n`;
  const text = diagnosed.map(({ a, o, d }) => `device ${a.device}, event #${o.index}: ${renderDiagnosis(d)}`);
  if (left) text.push(`${notDiagnosedNote(left, kept.length)}\n`);
  return text.join('');
}
