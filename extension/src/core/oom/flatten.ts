/**
 * Pasted OOM messages come wrapped at any column, behind log prefixes on every line, in HTML cells,
 * with colour codes. The parser reads a flattened copy instead: line prefixes, markup, escapes and
 * every whitespace character removed, each kept character remembering where it was, so a match
 * maps back onto the text as it was given.
 */

export interface Flat {
  text: string;
  /** Offset in the original text of each character of `text`. */
  at: Int32Array;
}

// What a logger, a launcher or a quote puts at the start of each line. Applied repeatedly, and only
// at a line's start: the message's own words never look like these there.
const PREFIX = new RegExp(
  [
    String.raw`\s+`,
    String.raw`>+`,
    String.raw`#+(?=\s|$)`,
    String.raw`//(?=\s)`,
    String.raw`\|`,
    String.raw`\[(?:rank|default|local_rank)\d+\]:?`,
    String.raw`\[\d+,\d+\]<std(?:out|err)>:`,
    String.raw`(?:rank|Rank|RANK)\s?\d+:`,
    String.raw`\d{1,4}:(?=\s)`,
    String.raw`\[?\d{4}[-/.]\d{2}[-/.]\d{2}[ T_]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?`,
    String.raw`\[?\d{2}[-/]\d{2}[ -]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?`,
    String.raw`\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?`,
    String.raw`\([A-Za-z_][\w-]*(?: pid=\d+)(?:, ip=[\d.]+)?\)`,
    String.raw`\[?(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL)\]?:?(?=\s)`,
    String.raw`\[[\w./ -]{1,80}\.py:\d+\]`,
    String.raw`[\w./-]{1,80}\.py:\d+\]`,
    String.raw`[EWIF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.]+:\d+\]`,
    String.raw`-\s(?=\S)`,
  ].join('|'),
  'y',
);
// ANSI sequences, and what is left of them where the ESC was lost on the way (GitHub keeps "[0m").
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\[\d{1,3}(?:;\d{1,3}){0,4}m/y;
const TAG = /<\/?[A-Za-z][^<>]{0,200}>|<!--[\s\S]{0,400}?-->/y;
const ENTITY = /&(?:#(\d{1,6})|#x([0-9a-fA-F]{1,5})|(amp|lt|gt|quot|apos|nbsp|#39));/y;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
/** Whitespace (JavaScript's \s), zero-width characters and the BOM: by code, for the per-character loop. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200d) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x2060 ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Not a line break, a space, nor the start of an escape, a tag or an entity: kept as it is. */
const ordinary = (c: number) => c !== 10 && c !== 13 && c !== 0x1b && c !== 0x5b && c !== 0x3c && c !== 0x26 && !isSpace(c);

function stickyAt(re: RegExp, s: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(s);
}

/** The flattened copy of text[from, to), which should start at a line's start (or say it does not). */
export function flatten(text: string, from = 0, to = text.length, atLineStart = true): Flat {
  const out: string[] = [];
  // The flattened copy is never longer than the window: one typed array, not a growing array of numbers.
  const at = new Int32Array(Math.max(0, to - from));
  let n = 0;
  let i = from;
  let lineStart = atLineStart;
  while (i < to) {
    if (lineStart) {
      lineStart = false;
      // Strip prefixes until none is left (bounded: each one consumes at least a character).
      for (let k = 0; k < 12; k++) {
        const m = stickyAt(PREFIX, text, i);
        if (!m || !m[0].length || i + m[0].length > to) break;
        i += m[0].length;
      }
      continue;
    }
    // A run of ordinary characters at once (most of a log): one slice, not a push per character.
    let j = i;
    while (j < to && ordinary(text.charCodeAt(j))) j++;
    if (j > i) {
      out.push(text.slice(i, j));
      while (i < j) at[n++] = i++;
      continue;
    }
    const c = text[i]!;
    if (c === '\n' || c === '\r') {
      i++;
      lineStart = true;
      continue;
    }
    if (c === '\x1b' || c === '[') {
      const m = stickyAt(ANSI, text, i);
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    if (c === '<') {
      const m = stickyAt(TAG, text, i);
      if (m) {
        // A <br> is a line break: the next line may carry its own prefix.
        lineStart = /^<br/i.test(m[0]);
        i += m[0].length;
        continue;
      }
    }
    if (c === '&') {
      const m = stickyAt(ENTITY, text, i);
      if (m) {
        const ch = m[1]
          ? String.fromCodePoint(Math.min(0x10ffff, Number(m[1])))
          : m[2]
            ? String.fromCodePoint(Math.min(0x10ffff, parseInt(m[2], 16)))
            : NAMED[m[3]!]!;
        if (!isSpace(ch.charCodeAt(0))) {
          out.push(ch);
          for (let k = 0; k < ch.length; k++) at[n++] = i;
        }
        i += m[0].length;
        continue;
      }
    }
    if (!isSpace(c.charCodeAt(0))) {
      out.push(c);
      at[n++] = i;
    }
    i++;
  }
  return { text: out.join(''), at: at.subarray(0, n) };
}
