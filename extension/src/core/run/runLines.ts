import { lstatSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseObject, readSideRecords, readSideTail, SIDE_LIMITS } from '../safeFile';
import { fromAgent } from './protocol';
import type { Sample } from './protocol';

// A run folder's JSON-lines side files (samples.jsonl, events.jsonl), read for runFolder.ts.

/**
 * Process folders a run may have: a node of 8 GPUs has 8, a large job's copy a few thousand; a
 * folder with 130,000 is refused with a typed error, not read (issue 39).
 */
export const MAX_PROCESSES = 16_384;

/**
 * The records already read in one readRun, by what was kept and the file's identity (device and
 * inode): hard links to one 256 MB samples.jsonl from six rank folders are read, and held, once.
 */
export type SeenFiles = Map<string, unknown[]>;

/** A stored record: samples are stored without their "type". */
function record(o: Record<string, unknown> | undefined): ReturnType<typeof fromAgent> {
  if (o && !('type' in o) && 'allocated' in o) o.type = 'sample';
  return fromAgent(o);
}

/** The file's identity; lstat: a link has its own inode, so only hard links (regular files in their folders) share one. */
function fileKey(p: string): string | undefined {
  try {
    const st = lstatSync(p);
    return st.isFile() ? `${basename(p)}:${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined; // missing: read as absent
  }
}

export function readLines<T>(p: string, keep: (m: ReturnType<typeof fromAgent>) => T | undefined, seen?: SeenFiles): T[] {
  const out: T[] = [];
  const maxBytes = basename(p) === 'samples.jsonl' ? SIDE_LIMITS.samples : SIDE_LIMITS.events;
  const key = fileKey(p);
  const hit = key !== undefined ? seen?.get(key) : undefined;
  if (hit) return hit as T[];
  try {
    for (const o of readSideRecords(p, { root: dirname(p), maxBytes, maxLine: SIDE_LIMITS.line })) {
      const v = keep(record(o));
      if (v !== undefined) out.push(v);
    }
  } catch {
    // missing or refused: no records (those read before a failure are kept)
  }
  if (key !== undefined) seen?.set(key, out);
  return out;
}

/** The samples among the file's last 64 KiB. */
export function tailSamples(p: string): Sample[] {
  try {
    return readSideTail(p, { root: dirname(p), maxBytes: SIDE_LIMITS.samples }, 64 << 10).flatMap((l) => {
      const m = record(parseObject(l));
      return m?.type === 'sample' ? [m] : [];
    });
  } catch {
    return [];
  }
}

type Kept = { i: number; s: Sample };
const PEAKS = ['max_requested', 'max_reserved'] as const;

/**
 * The samples `headroom ranks` reads of one process, streamed: the highest max_requested and
 * max_reserved (Math.max's way: a value that is no number wins for good), the last, and the last at
 * or before `cut` (the first OOM of any rank), in file order: ranks.ts's figures over these are its
 * figures over every sample, and a 256 MB samples.jsonl holds four (issue 39).
 */
export function rankSamples(p: string, cut: number | null, seen?: SeenFiles): Sample[] {
  const key = fileKey(p) && `${fileKey(p)}:ranks:${cut}`;
  const hit = key ? seen?.get(key) : undefined;
  if (hit) return hit as Sample[];
  const best = new Map<string, Kept>();
  let i = 0;
  try {
    for (const o of readSideRecords(p, { root: dirname(p), maxBytes: SIDE_LIMITS.samples, maxLine: SIDE_LIMITS.line })) {
      const s = record(o);
      if (s?.type !== 'sample') continue;
      const k = { i: i++, s };
      for (const f of PEAKS) {
        const b = best.get(f);
        const v = Number(s[f]);
        if (!b || (!Number.isNaN(Number(b.s[f])) && (Number.isNaN(v) || v > Number(b.s[f])))) best.set(f, k);
      }
      if (!best.has('last') || s.t >= best.get('last')!.s.t) best.set('last', k);
      const c = best.get('cut');
      if (cut !== null && s.t <= cut && (!c || s.t > c.s.t)) best.set('cut', k);
    }
  } catch {
    // missing or refused: the samples before the failure
  }
  const out = [...new Set(best.values())].sort((x, y) => x.i - y.i).map((k) => k.s);
  if (key) seen?.set(key, out);
  return out;
}
