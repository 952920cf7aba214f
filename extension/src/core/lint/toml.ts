/**
 * A TOML 1.0 reader for pyproject.toml: the whole grammar, because a project's other tables (ruff,
 * mypy, poetry…) must read too. Limited for files from strangers: nesting depth, and errors typed
 * with line and column (never a RangeError from recursion). Dates and times come back as their text.
 */
export class TomlError extends Error {
  override name = 'TomlError';
  constructor(
    message: string,
    readonly line: number,
    readonly col: number,
  ) {
    super(message);
  }
}

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export interface TomlDoc {
  root: TomlTable;
  /** The 1-based line where a key (or an array's element, by index) was written. */
  lineOf(path: readonly (string | number)[]): number | undefined;
}

/** Arrays and inline tables nested deeper, or keys with more parts, are refused. */
export const TOML_MAX_DEPTH = 64;

type Path = (string | number)[];
const ESC: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
const BARE = /[A-Za-z0-9_-]+/y;
const SCALAR = /[A-Za-z0-9_+\-.:]+/y;
const INT = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const RADIX = /^0(?:x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|o[0-7](?:_?[0-7])*|b[01](?:_?[01])*)$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
// Control characters TOML forbids in strings and comments (tab is allowed).
const CONTROL = /[\0-\x08\x0a-\x1f\x7f]/;

const isTable = (v: TomlValue | undefined): v is TomlTable => typeof v === 'object' && !Array.isArray(v);
// No prototype: a key named __proto__ is a key like any other.
const newTable = (): TomlTable => Object.create(null) as TomlTable;

export function parseToml(source: string): TomlDoc {
  return new Reader(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source).doc();
}

class Reader {
  private i = 0;
  private readonly lines = new Map<string, number>();
  /** Tables defined (by a [header] or dotted keys: no [header] may define them again), values never extended. */
  private readonly defined = new WeakSet<object>();
  private readonly frozen = new WeakSet<object>();
  private readonly arrayTables = new WeakSet<object>();

  constructor(private readonly s: string) {}

  private lineAt(at: number): number {
    let n = 1;
    for (let j = this.s.indexOf('\n'); j >= 0 && j < at; j = this.s.indexOf('\n', j + 1)) n++;
    return n;
  }

  private fail(msg: string, at = this.i): never {
    const line = this.lineAt(at);
    throw new TomlError(msg, line, at - (at > 0 ? this.s.lastIndexOf('\n', at - 1) : -1));
  }

  private note(path: Path, at: number): void {
    this.lines.set(JSON.stringify(path), at);
  }

  doc(): TomlDoc {
    const root = newTable();
    let table = root;
    let path: Path = [];
    for (this.skipBlank(); this.i < this.s.length; this.skipBlank()) {
      const at = this.i;
      if (this.s[this.i] === '[') {
        const many = this.s[this.i + 1] === '[';
        this.i += many ? 2 : 1;
        const keys = this.key();
        if (!this.s.startsWith(many ? ']]' : ']', this.i)) this.fail(`expected ${many ? ']]' : ']'} to end the table header`);
        this.i += many ? 2 : 1;
        ({ table, path } = this.header(root, keys, many, at));
      } else this.keyValue(table, path);
      this.endOfLine();
    }
    const lines = this.lines;
    return { root, lineOf: (p) => (lines.has(JSON.stringify(p)) ? this.lineAt(lines.get(JSON.stringify(p))!) : undefined) };
  }

  private ws(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  /** Spaces, newlines and comments (between statements and inside arrays). */
  private skipBlank(): void {
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === '\n') this.i++;
      else if (c === '\r' && this.s[this.i + 1] === '\n') this.i += 2;
      else if (c === '#') this.comment();
      else return;
    }
  }

  private comment(): void {
    const end = this.s.indexOf('\n', this.i);
    const text = this.s.slice(this.i, end < 0 ? undefined : end).replace(/\r$/, '');
    if (CONTROL.test(text)) this.fail('a control character in a comment');
    this.i += text.length;
  }

  private endOfLine(): void {
    this.ws();
    if (this.s[this.i] === '#') this.comment();
    if (this.i >= this.s.length || this.s[this.i] === '\n' || this.s.startsWith('\r\n', this.i)) return;
    this.fail('expected the end of the line');
  }

  private key(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === '"' || c === "'") {
        if (this.s.startsWith(c.repeat(3), this.i)) this.fail('a key cannot be a multi-line string');
        keys.push(this.string());
      } else {
        BARE.lastIndex = this.i;
        const m = BARE.exec(this.s);
        if (!m) this.fail('expected a key');
        keys.push(m[0]);
        this.i += m[0].length;
      }
      if (keys.length > TOML_MAX_DEPTH) this.fail(`a key of more than ${TOML_MAX_DEPTH} parts`);
      this.ws();
      if (this.s[this.i] !== '.') return keys;
      this.i++;
    }
  }

  /** Into `t[k]` on the way to a header: a table, or an array of tables' last. */
  private step(t: TomlTable, k: string, path: Path, at: number): TomlTable {
    const v = t[k];
    path.push(k);
    if (v === undefined) return (t[k] = newTable());
    if (Array.isArray(v) && this.arrayTables.has(v)) {
      path.push(v.length - 1);
      return v[v.length - 1] as TomlTable;
    }
    if (isTable(v) && !this.frozen.has(v)) return v;
    return this.fail(`${k} is already a value, not a table`, at);
  }

  private header(root: TomlTable, keys: string[], many: boolean, at: number): { table: TomlTable; path: Path } {
    const path: Path = [];
    let t = root;
    for (const k of keys.slice(0, -1)) t = this.step(t, k, path, at);
    const k = keys[keys.length - 1]!;
    const v = t[k];
    path.push(k);
    const name = keys.join('.');
    if (many) {
      if (v !== undefined && !(Array.isArray(v) && this.arrayTables.has(v))) this.fail(`[[${name}]]: ${name} is already a value`, at);
      const list = v ?? (t[k] = []);
      this.arrayTables.add(list as TomlValue[]);
      const table = newTable();
      (list as TomlValue[]).push(table);
      path.push((list as TomlValue[]).length - 1);
      this.note(path, at);
      return { table, path };
    }
    if (v !== undefined && (!isTable(v) || this.defined.has(v) || this.frozen.has(v))) this.fail(`[${name}] is defined twice`, at);
    const table = v ?? (t[k] = newTable());
    this.defined.add(table);
    this.note(path, at);
    return { table: table as TomlTable, path };
  }

  private keyValue(table: TomlTable, base: Path, depth = 0): void {
    const at = this.i;
    const keys = this.key();
    if (this.s[this.i] !== '=') this.fail('expected = after the key');
    this.i++;
    this.ws();
    const path = [...base, ...keys];
    let t = table;
    for (const k of keys.slice(0, -1)) {
      const v = t[k];
      if (v === undefined) this.defined.add((t = t[k] = newTable()));
      else if (isTable(v) && !this.frozen.has(v)) t = v;
      else this.fail(`${k} is already a value, not a table`, at);
    }
    const k = keys[keys.length - 1]!;
    if (Object.hasOwn(t, k)) this.fail(`${path.join('.')} is defined twice`, at);
    this.note(path, at);
    t[k] = this.value(path, depth);
  }

  private value(path: Path, depth: number): TomlValue {
    if (depth >= TOML_MAX_DEPTH) this.fail(`arrays or inline tables nested deeper than ${TOML_MAX_DEPTH}`);
    const c = this.s[this.i];
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array(path, depth + 1);
    if (c === '{') return this.inline(path, depth + 1);
    return this.scalar();
  }

  private array(path: Path, depth: number): TomlValue[] {
    const out: TomlValue[] = [];
    this.frozen.add(out);
    this.i++;
    for (;;) {
      this.skipBlank();
      if (this.s[this.i] === ']') break;
      this.note([...path, out.length], this.i);
      out.push(this.value([...path, out.length], depth));
      this.skipBlank();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ']') this.fail('expected , or ] in the array');
    }
    this.i++;
    return out;
  }

  private inline(path: Path, depth: number): TomlTable {
    const t = newTable();
    this.frozen.add(t);
    this.i++;
    this.ws();
    while (this.s[this.i] !== '}') {
      this.keyValue(t, path, depth);
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        this.ws();
        if (this.s[this.i] === '}') this.fail('a comma before } in an inline table');
      } else if (this.s[this.i] !== '}') this.fail('expected , or } in the inline table');
    }
    this.i++;
    return t;
  }

  /** Any of the four kinds; escapes in `"` ones, and a newline right after `"""` or `'''` is dropped. */
  private string(): string {
    const at = this.i;
    const q = this.s[at]!;
    const multi = this.s.startsWith(q.repeat(3), at);
    this.i += multi ? 3 : 1;
    if (multi) this.i += this.s[this.i] === '\n' ? 1 : this.s.startsWith('\r\n', this.i) ? 2 : 0;
    let out = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined || (c === '\n' && !multi)) this.fail(`the string has no closing ${multi ? q.repeat(3) : q}`, at);
      if (c === q && (!multi || this.s.startsWith(q.repeat(3), this.i))) {
        let n = 1;
        while (multi && this.s[this.i + n] === q) n++;
        if (n > 5) this.fail(`too many ${q} to end the string`);
        this.i += n;
        return out + q.repeat(Math.max(0, n - 3));
      }
      if (c === '\\' && q === '"') out += this.escape(multi);
      else if (CONTROL.test(c) && !(multi && (c === '\n' || (c === '\r' && this.s[this.i + 1] === '\n'))))
        this.fail('a control character in a string');
      else out += this.s[this.i++];
    }
  }

  private escape(multiline = false): string {
    const at = this.i++;
    const e = this.s[this.i];
    if (e !== undefined && Object.hasOwn(ESC, e)) return ESC[this.s[this.i++]!]!;
    if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const hex = this.s.slice(this.i + 1, this.i + 1 + n);
      const cp = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === n ? Number.parseInt(hex, 16) : -1;
      if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail(`\\${e}${hex}: not a Unicode scalar value`, at);
      this.i += 1 + n;
      return String.fromCodePoint(cp);
    }
    if (multiline) {
      // A backslash ending a line: the line break and the blank space after it go.
      let j = this.i;
      while (this.s[j] === ' ' || this.s[j] === '\t') j++;
      if (this.s[j] === '\n' || this.s.startsWith('\r\n', j)) {
        for (this.i = j; /[ \t\r\n]/.test(this.s[this.i] ?? ''); ) this.i++;
        return '';
      }
    }
    return this.fail(`\\${e ?? ''} is not an escape TOML knows`, at);
  }

  private scalar(): TomlValue {
    const at = this.i;
    SCALAR.lastIndex = at;
    let tok = SCALAR.exec(this.s)?.[0];
    if (!tok) this.fail('expected a value');
    // A date, a space, a time: one value.
    if (/^\d{4}-\d{2}-\d{2}$/.test(tok) && /^ \d{2}:/.test(this.s.slice(at + 10, at + 14))) {
      SCALAR.lastIndex = at + 11;
      tok += ` ${SCALAR.exec(this.s)![0]}`;
    }
    this.i += tok.length;
    if (tok === 'true' || tok === 'false') return tok === 'true';
    if (INT.test(tok) || RADIX.test(tok) || FLOAT.test(tok)) return Number(tok.replace(/_/g, ''));
    const special = /^([+-]?)(inf|nan)$/.exec(tok);
    if (special) return special[2] === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
    if (DATE.test(tok) || TIME.test(tok)) return tok;
    return this.fail(`not a TOML value: ${tok.length > 40 ? `${tok.slice(0, 40)}…` : tok}`, at);
  }
}
