/**
 * What the safe reader produces. Plain data maps to plain JS values; everything that would make
 * Python run code (GLOBAL, REDUCE, NEWOBJ, BUILD) becomes an inert record that only describes
 * what the pickle asked for. Nothing here is ever called.
 */
export type PyValue = null | boolean | number | bigint | string | Uint8Array | PyValue[] | PyDict | PyInert;

/** A dict whose keys were all str (ints are written as decimal strings, like JSON). */
export interface PyDict {
  [key: string]: PyValue;
}

export type InertKind = 'global' | 'call' | 'new' | 'build';

export class PyInert {
  constructor(
    readonly kind: InertKind,
    /** `module.name` of the global involved, when the pickle names one. */
    readonly qualname: string,
    readonly args: readonly PyValue[],
  ) {}

  describe(): string {
    switch (this.kind) {
      case 'global':
        return `a reference to ${this.qualname}`;
      case 'call':
        return `a call to ${this.qualname}(…)`;
      case 'new':
        return `an instance of ${this.qualname}`;
      case 'build':
        return `an object of ${this.qualname} with state`;
    }
  }
}

/** A short, user-facing name for a value's Python type: "a str", "a list", "a call to os.system(…)". */
export function describePy(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return 'a bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an int' : 'a float';
  if (typeof v === 'bigint') return 'an int';
  if (typeof v === 'string') return 'a str';
  if (v instanceof Uint8Array) return 'a bytes object';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof PyInert) return v.describe();
  return 'a dict';
}

export function isDict(v: unknown): v is PyDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyInert) && !(v instanceof Uint8Array);
}
