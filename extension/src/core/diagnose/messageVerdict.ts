import { formatBytes as b } from '../../shared/format';
import type { OomMessage } from '../oom/types';
import type { MessageFacts } from './messageFacts';
import { freeOthers, record, releaseNonPyTorch } from './messageRemedies';
import type { OomDiagnosis } from './oom';

// The message doctor's verdicts as diagnoses: the figures kept beside them, "record" always last.

const GiB = 2 ** 30;
/** A quarter of the device outside PyTorch is what other programs took in the threads (36–74 %). */
export const OUTSIDE_SHARE = 0.25;
export const pct = (x: number, t: number) => `${Math.round((x / t) * 100)}%`;

export function result(
  m: OomMessage,
  f: MessageFacts,
  kind: OomDiagnosis['kind'],
  why: string,
  remedies: OomDiagnosis['remedies'],
): OomDiagnosis {
  const others = f.others.map((p) => ({ pid: p.pid, used: p.used }));
  return {
    kind,
    why,
    requestBytes: f.request ?? 0,
    pools: [],
    categories: [],
    topLines: [],
    message: { format: m.format, truncated: m.truncated, facts: f },
    ...(f.outside !== undefined ? { outsideBytes: f.outside } : {}),
    ...(others.length ? { others } : {}),
    remedies: [...remedies, record],
  };
}

/** Non-PyTorch when what lies outside this process's PyTorch, beyond a context, is a quarter of the device. */
export function outsideVerdict(m: OomMessage, f: MessageFacts, t: number, capNote: string): OomDiagnosis | undefined {
  const beyondContext = Math.max(f.othersBytes, (f.outside ?? 0) - GiB);
  if (beyondContext < t * OUTSIDE_SHARE) return undefined;
  const self = selfExtra(f);
  const parts = [
    f.othersBytes ? `${b(f.othersBytes)} in other processes (${f.others.map((p) => `pid ${p.pid}`).join(', ')})` : '',
    self !== undefined
      ? `${b(self)} in this process beside PyTorch${f.selfPid !== undefined ? ` (listed as pid ${f.selfPid}: a container hides its own pid)` : ''}`
      : '',
  ].filter(Boolean);
  const remedies = [];
  if (f.othersBytes || (f.outside !== undefined && (self === undefined || f.outside - self > GiB))) remedies.push(freeOthers(f));
  if (self !== undefined && self > 2 * GiB) remedies.push(releaseNonPyTorch(self));
  const outside = f.outside ?? f.othersBytes;
  return result(
    m,
    f,
    'non-pytorch',
    `${b(outside)} of the ${b(t)} device (${pct(outside, t)}) is outside PyTorch’s ${f.reserved !== undefined ? `${b(f.reserved)} ` : ''}reserve${parts.length ? `: ${parts.join(', ')}` : ' (total − free − reserved: other programs, or this process’s other libraries)'}.${capNote}`,
    remedies,
  );
}

/** This process's memory beside PyTorch's reserve, when the message lists this process. */
export const selfExtra = (f: MessageFacts) =>
  f.selfUsed !== undefined && f.reserved !== undefined ? Math.max(0, f.selfUsed - f.reserved) : undefined;
