// Finds the CUDA out-of-memory messages in any text (a traceback, a log, a pasted issue) in every
// format PyTorch has printed (docs/oom-formats.md), read from a flattened copy so that wrapping,
// line prefixes, markup and colour codes do not hide them.
import { flatten } from './oom/flatten';
import { FORMATS } from './oom/formats';
import type { OomMessage } from './oom/types';

// Lines that may hold part of a message: the flattening works on windows around them, so a long
// log costs one scan, not a copy of itself.
const CANDIDATE = /memory|allocat|runtime error|CUBLAS_STATUS_ALLOC_FAILED|capaci?ty|reserved|GiB|MiB/i;
/** A message wrapped at 10 columns spans about 60 lines. */
const AFTER = 64;
const BEFORE = 4;
/**
 * A window spans this many lines at most: a log of a million OOM lines is one candidate after another,
 * and one window over all of it flattened 64 MB into per-character arrays (a heap out of memory, issue 39).
 * The next window overlaps it (BEFORE + AFTER lines), so a message at the seam is read whole in one of them.
 */
const SPAN = 4096;
/** A window longer than this (one line of 64 MB has no break to split at) is read in pieces, each overlapping the next by more than any message. */
const PIECE = 1 << 20;
const OVERLAP = 64 << 10;

/** Character ranges to flatten, in order, and whether each starts a line. */
function windows(text: string): [number, number, boolean][] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineEnd = (k: number) => (k + 1 < starts.length ? starts[k + 1]! : text.length);
  const out: [number, number][] = [];
  for (let k = 0; k < starts.length; k++) {
    if (!CANDIDATE.test(text.slice(starts[k], lineEnd(k)))) continue;
    const from = Math.max(0, k - BEFORE);
    const to = Math.min(starts.length - 1, k + AFTER);
    const last = out.at(-1);
    if (last && last[1] >= from && to - last[0] <= SPAN) last[1] = to;
    else out.push([from, to]);
  }
  return out.flatMap(([a, b]): [number, number, boolean][] => {
    const [from, to] = [starts[a]!, lineEnd(b)];
    if (to - from <= PIECE + OVERLAP) return [[from, to, true]];
    return Array.from({ length: Math.ceil((to - from - OVERLAP) / PIECE) }, (_, i) => {
      const at = from + i * PIECE;
      return [at, Math.min(to, at + PIECE + OVERLAP), i === 0];
    });
  });
}

/** Whether a flag is set in [start, end): a loop, not a subarray per match (a million matches in a log). */
function takenIn(taken: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (taken[i]) return true;
  return false;
}

/** Finds and parses every OOM message in `text`, in order. */
export function parseOomMessages(text: string): OomMessage[] {
  const out: OomMessage[] = [];
  const ws = windows(text);
  ws.forEach(([from, to, lineStart], w) => {
    // Where the next window starts, when it overlaps this one: messages from there on are its own.
    const next = ws[w + 1]?.[0] ?? to;
    const flat = flatten(text, from, to, lineStart);
    const found: { start: number; end: number; m: Omit<OomMessage, 'offset' | 'end' | 'text'> }[] = [];
    // Where an earlier format's match lies (the absurd form starts like the others): one flag per
    // character, so a text of a million messages costs a pass per format, not a pass per message.
    const taken = new Uint8Array(flat.text.length);
    for (const f of FORMATS) {
      f.re.lastIndex = 0;
      for (const m of flat.text.matchAll(f.re)) {
        const start = m.index!;
        const end = start + m[0].length;
        if (takenIn(taken, start, end)) continue;
        const parsed = f.read(m.groups ?? {});
        if (!parsed) continue;
        taken.fill(1, start, end);
        found.push({ start, end, m: parsed });
      }
    }
    found.sort((a, b) => a.start - b.start);
    for (const x of found) {
      const offset = flat.at[x.start]!;
      const end = flat.at[x.end - 1]! + 1;
      // The reader's own fresh object, completed in place: a spread copy of each costs a million logs' heap.
      // Messages never overlap (taken, above): a piece's match inside one its predecessor read is a part of it.
      if (offset < next && offset >= (out.at(-1)?.end ?? 0)) out.push(Object.assign(x.m, { offset, end, text: text.slice(offset, end) }));
    }
  });
  return out.sort((a, b) => a.offset - b.offset);
}
