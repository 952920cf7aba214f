import type { Cursor } from './cursor';
import type { TomlValue } from './types';

const SCALAR = /[A-Za-z0-9_+\-.:]+/y;
const INT = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const RADIX = /^0(?:x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|o[0-7](?:_?[0-7])*|b[01](?:_?[01])*)$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/** A boolean, a number (inf and nan too), or a date or time as its text. */
export function readScalar(c: Cursor): TomlValue {
  const at = c.i;
  SCALAR.lastIndex = at;
  let tok = SCALAR.exec(c.s)?.[0];
  if (!tok) c.fail('expected a value');
  // A date, a space, a time: one value.
  if (/^\d{4}-\d{2}-\d{2}$/.test(tok) && /^ \d{2}:/.test(c.s.slice(at + 10, at + 14))) {
    SCALAR.lastIndex = at + 11;
    tok += ` ${SCALAR.exec(c.s)![0]}`;
  }
  c.i += tok.length;
  if (tok === 'true' || tok === 'false') return tok === 'true';
  if (INT.test(tok) || RADIX.test(tok) || FLOAT.test(tok)) return Number(tok.replace(/_/g, ''));
  const special = /^([+-]?)(inf|nan)$/.exec(tok);
  if (special) return special[2] === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
  if (DATE.test(tok) || TIME.test(tok)) return tok;
  return c.fail(`not a TOML value: ${tok.length > 40 ? `${tok.slice(0, 40)}…` : tok}`, at);
}
