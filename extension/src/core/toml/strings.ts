import { CONTROL } from './cursor';
import type { Cursor } from './cursor';

const ESC: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

/** Any of the four kinds; escapes in `"` ones, and a newline right after `"""` or `'''` is dropped. */
export function readString(c: Cursor): string {
  const at = c.i;
  const q = c.s[at]!;
  const multi = c.s.startsWith(q.repeat(3), at);
  c.i += multi ? 3 : 1;
  if (multi) c.i += c.s[c.i] === '\n' ? 1 : c.s.startsWith('\r\n', c.i) ? 2 : 0;
  let out = '';
  for (;;) {
    const ch = c.s[c.i];
    if (ch === undefined || (ch === '\n' && !multi)) c.fail(`the string has no closing ${multi ? q.repeat(3) : q}`, at);
    if (ch === q && (!multi || c.s.startsWith(q.repeat(3), c.i))) {
      let n = 1;
      while (multi && c.s[c.i + n] === q) n++;
      if (n > 5) c.fail(`too many ${q} to end the string`);
      c.i += n;
      return out + q.repeat(Math.max(0, n - 3));
    }
    if (ch === '\\' && q === '"') out += escape(c, multi);
    else if (CONTROL.test(ch) && !(multi && (ch === '\n' || (ch === '\r' && c.s[c.i + 1] === '\n'))))
      c.fail('a control character in a string');
    else out += c.s[c.i++];
  }
}

function escape(c: Cursor, multiline = false): string {
  const at = c.i++;
  const e = c.s[c.i];
  if (e !== undefined && Object.hasOwn(ESC, e)) return ESC[c.s[c.i++]!]!;
  if (e === 'u' || e === 'U') {
    const n = e === 'u' ? 4 : 8;
    const hex = c.s.slice(c.i + 1, c.i + 1 + n);
    const cp = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === n ? Number.parseInt(hex, 16) : -1;
    if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) c.fail(`\\${e}${hex}: not a Unicode scalar value`, at);
    c.i += 1 + n;
    return String.fromCodePoint(cp);
  }
  if (multiline) {
    // A backslash ending a line: the line break and the blank space after it go.
    let j = c.i;
    while (c.s[j] === ' ' || c.s[j] === '\t') j++;
    if (c.s[j] === '\n' || c.s.startsWith('\r\n', j)) {
      for (c.i = j; /[ \t\r\n]/.test(c.s[c.i] ?? ''); ) c.i++;
      return '';
    }
  }
  return c.fail(`\\${e ?? ''} is not an escape TOML knows`, at);
}
