import type { OomMessage } from '../oom/types';
import { poolRow } from './oom';
import type { OomDiagnosis } from './oom';

/**
 * `headroom check … --explain-oom --json`: one entry per OOM, in order. Figures are bytes, named as
 * the message prints them ("tried", "cached" for ≤1.4, "reserved" for 1.5–2.0, "unallocated" for
 * 2.1+); `derived` is what the doctor computed from them.
 */
export interface OomJson {
  class: OomDiagnosis['kind'];
  figures: Record<string, unknown>;
  derived: Record<string, unknown>;
  reason: string;
  remedies: { id: string; title: string; change: string; effect: string }[];
  format?: string;
  truncated?: boolean;
  line?: number;
  evidence?: string;
}

export function messageFigures(m: OomMessage): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => v !== undefined && (f[k] = v);
  put('gpu', m.device);
  put('tried', m.triedBytes);
  put('requested', m.requestedBytes);
  put('total', m.totalBytes);
  put('free', m.freeBytes);
  put('allocated', m.allocatedBytes);
  put('reserved', m.reservedBytes);
  put(m.format === 'cached' ? 'cached' : 'unallocated', m.reservedUnallocatedBytes);
  put('private', m.privatePoolBytes);
  put('allowed', m.allowedBytes);
  if (m.processes.length) f.processes = m.processes.map((p) => ({ pid: p.pid, used: p.usedBytes }));
  return f;
}

export function oomJson(d: OomDiagnosis, m?: OomMessage, line?: number): OomJson {
  // A snapshot's evidence (its pools, live categories, top lines) joins what the message said.
  const snapshot = d.pools.length ? { pools: d.pools.map(poolRow), categories: d.categories, topLines: d.topLines } : {};
  const derived: Record<string, unknown> = {
    ...(d.message?.facts ?? { request: d.requestBytes }),
    ...(d.outsideBytes !== undefined ? { outside: d.outsideBytes } : {}),
    ...snapshot,
  };
  return {
    class: d.kind,
    figures: m ? messageFigures(m) : { tried: d.requestBytes },
    derived,
    reason: d.why,
    remedies: d.remedies.map((r) => ({ id: r.id, title: r.title, change: r.change, effect: r.effect })),
    ...(m ? { format: m.format, truncated: m.truncated } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(d.evidence ? { evidence: d.evidence } : {}),
  };
}
