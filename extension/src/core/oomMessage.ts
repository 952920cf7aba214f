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

function windows(text: string): [number, number][] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineEnd = (k: number) => (k + 1 < starts.length ? starts[k + 1]! : text.length);
  const out: [number, number][] = [];
  for (let k = 0; k < starts.length; k++) {
    if (!CANDIDATE.test(text.slice(starts[k], lineEnd(k)))) continue;
    const from = Math.max(0, k - BEFORE);
    const to = Math.min(starts.length - 1, k + AFTER);
    const last = out.at(-1);
    if (last && last[1] >= from) last[1] = to;
    else out.push([from, to]);
  }
  return out.map(([a, b]) => [starts[a]!, lineEnd(b)]);
}

/** Finds and parses every OOM message in `text`, in order. */
export function parseOomMessages(text: string): OomMessage[] {
  const out: OomMessage[] = [];
  for (const [from, to] of windows(text)) {
    const flat = flatten(text, from, to);
    const found: { start: number; end: number; m: Omit<OomMessage, 'offset' | 'end' | 'text'> }[] = [];
    // Where an earlier format's match lies (the absurd form starts like the others): one flag per
    // character, so a text of a million messages costs a pass per format, not a pass per message.
    const taken = new Uint8Array(flat.text.length);
    for (const f of FORMATS) {
      f.re.lastIndex = 0;
      for (const m of flat.text.matchAll(f.re)) {
        const start = m.index!;
        const end = start + m[0].length;
        if (taken.subarray(start, end).includes(1)) continue;
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
      out.push({ ...x.m, offset, end, text: text.slice(offset, end) });
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}
