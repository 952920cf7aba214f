/**
 * Text from snapshots, run folders, logs and OOM messages is data: it is shown, never obeyed. The
 * escaping every surface shares, the webview included (so it imports nothing but shared modules).
 */

/**
 * Characters a sink could act on: C0 controls (ESC, CR, LF, TAB, BEL…), DEL, C1 controls (CSI
 * U+009B starts escape sequences on some terminals), bidi embeddings, overrides and isolates (they
 * reorder what is shown: "Trojan Source"), line/paragraph separators, and the BOM.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of plain text: every control or reordering character written as a visible escape (`\x1b`, `\r`, `\n`, `\u202e`). */
export function plain(s: string): string {
  return s.replace(CONTROL, escapeOne);
}

/** Like {@link plain}, but keeps the line breaks: for text Headroom composed line by line (a safety net). */
export function plainLines(s: string): string {
  return s
    .split('\n')
    .map((l) => plain(l))
    .join('\n');
}

/** What JSON.stringify writes raw but a terminal acts on: C1 controls, bidi marks, line separators, the BOM (C0 it escapes itself). */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/**
 * JSON text for output: JSON.stringify (one space of indent, as every `--json` prints), then each
 * character a terminal could act on written as a `\uXXXX` escape. Such characters only occur inside
 * strings, so the text stays valid JSON and parses to the same value; only its display is safe.
 */
export function jsonText(value: unknown, indent = 1): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
