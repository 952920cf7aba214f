import type { Cursor } from './cursor';
import { readScalar } from './scalar';
import { readString } from './strings';
import { isTable, newTable, TOML_MAX_DEPTH } from './types';
import type { Path, TomlTable, TomlValue } from './types';

const BARE = /[A-Za-z0-9_-]+/y;

/** A dotted key's parts, bare or quoted. */
export function readKey(c: Cursor): string[] {
  const keys: string[] = [];
  for (;;) {
    c.ws();
    const ch = c.s[c.i];
    if (ch === '"' || ch === "'") {
      if (c.s.startsWith(ch.repeat(3), c.i)) c.fail('a key cannot be a multi-line string');
      keys.push(readString(c));
    } else {
      BARE.lastIndex = c.i;
      const m = BARE.exec(c.s);
      if (!m) c.fail('expected a key');
      keys.push(m[0]);
      c.i += m[0].length;
    }
    if (keys.length > TOML_MAX_DEPTH) c.fail(`a key of more than ${TOML_MAX_DEPTH} parts`);
    c.ws();
    if (c.s[c.i] !== '.') return keys;
    c.i++;
  }
}

/** `key = value` into `table`, whose path is `base`; dotted keys make (and define) the tables between. */
export function readKeyValue(c: Cursor, table: TomlTable, base: Path, depth = 0): void {
  const at = c.i;
  const keys = readKey(c);
  if (c.s[c.i] !== '=') c.fail('expected = after the key');
  c.i++;
  c.ws();
  const path = [...base, ...keys];
  let t = table;
  for (const k of keys.slice(0, -1)) {
    const v = t[k];
    if (v === undefined) c.defined.add((t = t[k] = newTable()));
    else if (isTable(v) && !c.frozen.has(v)) t = v;
    else c.fail(`${k} is already a value, not a table`, at);
  }
  const k = keys[keys.length - 1]!;
  if (Object.hasOwn(t, k)) c.fail(`${path.join('.')} is defined twice`, at);
  c.note(path, at);
  t[k] = value(c, path, depth);
}

function value(c: Cursor, path: Path, depth: number): TomlValue {
  if (depth >= TOML_MAX_DEPTH) c.fail(`arrays or inline tables nested deeper than ${TOML_MAX_DEPTH}`);
  const ch = c.s[c.i];
  if (ch === '"' || ch === "'") return readString(c);
  if (ch === '[') return array(c, path, depth + 1);
  if (ch === '{') return inline(c, path, depth + 1);
  return readScalar(c);
}

function array(c: Cursor, path: Path, depth: number): TomlValue[] {
  const out: TomlValue[] = [];
  c.frozen.add(out);
  c.i++;
  for (;;) {
    c.skipBlank();
    if (c.s[c.i] === ']') break;
    c.note([...path, out.length], c.i);
    out.push(value(c, [...path, out.length], depth));
    c.skipBlank();
    if (c.s[c.i] === ',') c.i++;
    else if (c.s[c.i] !== ']') c.fail('expected , or ] in the array');
  }
  c.i++;
  return out;
}

function inline(c: Cursor, path: Path, depth: number): TomlTable {
  const t = newTable();
  c.frozen.add(t);
  c.i++;
  c.ws();
  while (c.s[c.i] !== '}') {
    readKeyValue(c, t, path, depth);
    c.ws();
    if (c.s[c.i] === ',') {
      c.i++;
      c.ws();
      if (c.s[c.i] === '}') c.fail('a comma before } in an inline table');
    } else if (c.s[c.i] !== '}') c.fail('expected , or } in the inline table');
  }
  c.i++;
  return t;
}
