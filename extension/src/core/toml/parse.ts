import { Cursor } from './cursor';
import { isTable, newTable } from './types';
import type { Path, TomlDoc, TomlTable, TomlValue } from './types';
import { readKey, readKeyValue } from './values';

/**
 * A TOML 1.0 reader for pyproject.toml: the whole grammar, because a project's other tables (ruff,
 * mypy, poetry…) must read too. Limited for files from strangers: nesting depth, and errors typed
 * with line and column (never a RangeError from recursion). Dates and times come back as their text.
 */
export function parseToml(source: string): TomlDoc {
  const c = new Cursor(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
  const root = newTable();
  let table = root;
  let path: Path = [];
  for (c.skipBlank(); c.i < c.s.length; c.skipBlank()) {
    const at = c.i;
    if (c.s[c.i] === '[') {
      const many = c.s[c.i + 1] === '[';
      c.i += many ? 2 : 1;
      const keys = readKey(c);
      if (!c.s.startsWith(many ? ']]' : ']', c.i)) c.fail(`expected ${many ? ']]' : ']'} to end the table header`);
      c.i += many ? 2 : 1;
      ({ table, path } = header(c, root, keys, many, at));
    } else readKeyValue(c, table, path);
    c.endOfLine();
  }
  const lines = c.lines;
  return { root, lineOf: (p) => (lines.has(JSON.stringify(p)) ? c.lineAt(lines.get(JSON.stringify(p))!) : undefined) };
}

/** Into `t[k]` on the way to a header: a table, or an array of tables' last. */
function step(c: Cursor, t: TomlTable, k: string, path: Path, at: number): TomlTable {
  const v = t[k];
  path.push(k);
  if (v === undefined) return (t[k] = newTable());
  if (Array.isArray(v) && c.arrayTables.has(v)) {
    path.push(v.length - 1);
    return v[v.length - 1] as TomlTable;
  }
  if (isTable(v) && !c.frozen.has(v)) return v;
  return c.fail(`${k} is already a value, not a table`, at);
}

function header(c: Cursor, root: TomlTable, keys: string[], many: boolean, at: number): { table: TomlTable; path: Path } {
  const path: Path = [];
  let t = root;
  for (const k of keys.slice(0, -1)) t = step(c, t, k, path, at);
  const k = keys[keys.length - 1]!;
  const v = t[k];
  path.push(k);
  const name = keys.join('.');
  if (many) {
    if (v !== undefined && !(Array.isArray(v) && c.arrayTables.has(v))) c.fail(`[[${name}]]: ${name} is already a value`, at);
    const list = v ?? (t[k] = []);
    c.arrayTables.add(list as TomlValue[]);
    const table = newTable();
    (list as TomlValue[]).push(table);
    path.push((list as TomlValue[]).length - 1);
    c.note(path, at);
    return { table, path };
  }
  if (v !== undefined && (!isTable(v) || c.defined.has(v) || c.frozen.has(v))) c.fail(`[${name}] is defined twice`, at);
  const table = v ?? (t[k] = newTable());
  c.defined.add(table);
  c.note(path, at);
  return { table: table as TomlTable, path };
}
