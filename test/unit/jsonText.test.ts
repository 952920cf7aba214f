import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonText } from '../../extension/src/shared/text';

// Issue 39: every --json of the CLI goes through jsonText. JSON.stringify leaves C1 controls, bidi
// overrides and isolates, U+2028/2029, U+061C, U+200E/F and the BOM raw: valid JSON that a terminal
// acts on. jsonText writes each as \uXXXX, and the text still parses to the same value.

/** Every character a terminal could act on that JSON.stringify writes raw (our own list, from the Unicode tables). */
const UNSAFE = [
  ...Array.from({ length: 0xa0 - 0x7f }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  ...Array.from({ length: 0x202f - 0x2028 }, (_, i) => 0x2028 + i),
  0x2066,
  0x2067,
  0x2068,
  0x2069,
  0xfeff,
].map((c) => String.fromCharCode(c));
// Line breaks are the indentation's own; any other C0 control JSON.stringify escapes itself.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

/** A small deterministic generator: strings mixing ordinary text, escapes JSON knows, and the unsafe characters. */
function* strings(n: number): Generator<string> {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const pool = ['a', 'é', '"', '\\', '\n', '\t', '\u0001', '\u00a0', '\u2003', '→', '😀', ...UNSAFE];
  for (let k = 0; k < n; k++) {
    let s = '';
    for (let len = next() % 12; len > 0; len--) s += pool[next() % pool.length];
    yield s;
  }
}

describe('jsonText', () => {
  it('writes every unsafe character as a \\u escape, in values and keys alike', () => {
    for (const c of UNSAFE) {
      const code = `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      const out = jsonText({ [`k${c}`]: `v${c}`, list: [c] });
      assert.equal(RAW.test(out), false, `U+${c.charCodeAt(0).toString(16)} written raw`);
      assert.ok(out.includes(`"k${code}"`) && out.includes(`"v${code}"`), out);
    }
  });

  it('parses back to the same value', () => {
    const values = [...strings(500)];
    const doc = { files: values, byName: Object.fromEntries(values.map((v, i) => [v + i, { message: v, n: i }])) };
    const out = jsonText(doc);
    assert.equal(RAW.test(out), false);
    assert.deepEqual(JSON.parse(out), doc);
  });

  it('is JSON.stringify with one space of indent where nothing needs escaping', () => {
    const doc = { a: 1, b: ['x', { c: null, d: true }], e: 'plain text, "quoted", é → ✓', f: '\n\t\u0001' };
    assert.equal(jsonText(doc), JSON.stringify(doc, null, 1));
    assert.equal(jsonText(doc, 0), JSON.stringify(doc));
  });
});
