/** A malformed TOML file: the message, and the 1-based line and column where reading stopped. */
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

export type Path = (string | number)[];

export const isTable = (v: TomlValue | undefined): v is TomlTable => typeof v === 'object' && !Array.isArray(v);
// No prototype: a key named __proto__ is a key like any other.
export const newTable = (): TomlTable => Object.create(null) as TomlTable;
