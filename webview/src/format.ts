/** Binary units, three significant digits: how every Headroom surface writes bytes. */
export function bytes(n: number): string {
  // A crafted snapshot can hold any number: no "NaN B", no billion TiB (as core/format.ts).
  if (!Number.isFinite(n)) return '? B';
  if (Math.abs(n) >= 2 ** 64) return `${n < 0 ? '-' : ''}>16 EiB`;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${n < 0 ? '-' : ''}${u === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

const COUNT = new Intl.NumberFormat('en-US');

/** 1,647,145: one shared formatter (toLocaleString builds one per call, too slow per frame). */
export function count(n: number): string {
  return COUNT.format(n);
}

/** A duration in µs, in the largest unit that keeps it readable. */
export function duration(us: number): string {
  const a = Math.abs(us);
  if (a >= 60e6) return `${(us / 60e6).toFixed(a >= 600e6 ? 0 : 1)} min`;
  if (a >= 1e6) return `${(us / 1e6).toFixed(a >= 10e6 ? 1 : 2)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(a >= 10e3 ? 0 : 1)} ms`;
  return `${Math.round(us)} µs`;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = shown(text);
  if (cls) e.className = cls;
  return e;
}

/**
 * Text from a snapshot as the page shows it: controls and bidi reorderings as visible escapes
 * (`\x1b`, `\u202e`), as extension/src/core/text.ts's plain() does for every other surface (the
 * webview imports only types from the extension, so the rule is written here again).
 */
export function shown(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** {@link shown} line by line: for the page's own multi-line text (a tooltip) that quotes data. */
export function shownLines(s: string): string {
  return s.split('\n').map(shown).join('\n');
}
