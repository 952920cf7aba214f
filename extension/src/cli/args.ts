import { parseSizeWithUnit } from '../shared/format';
import { parseLimitAssignment } from '../core/limits';
import type { Limits } from '../core/limits';

/** A small strict argument parser: unknown flags are errors, not silently ignored. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface FlagSpec {
  /** Takes a value (`--top 5` or `--top=5`). */
  value?: boolean;
  /** May be given more than once (values are collected). */
  repeat?: boolean;
}

export interface Parsed {
  positional: string[];
  flags: Map<string, string[]>;
}

/**
 * Reader limits raised with `--limit NAME=VALUE`, accepted by every command (it applies wherever a
 * snapshot is read). Set by the last parseArgs call; read by loadForCli.
 */
export let cliLimits: Partial<Limits> = {};

const GLOBAL_SPEC: Record<string, FlagSpec> = { limit: { value: true, repeat: true } };

export function parseArgs(argv: readonly string[], commandSpec: Record<string, FlagSpec>): Parsed {
  const spec = { ...GLOBAL_SPEC, ...commandSpec };
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option --${name}`);
    let value = 'true';
    if (s.value) {
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i]!;
      else throw new UsageError(`--${name} needs a value`);
    } else if (eq >= 0) throw new UsageError(`--${name} takes no value`);
    const prev = flags.get(name);
    if (prev && !s.repeat) throw new UsageError(`--${name} given twice`);
    flags.set(name, [...(prev ?? []), value]);
  }
  const limits: Partial<Limits> = {};
  for (const a of commandSpec.limit ? [] : (flags.get('limit') ?? [])) {
    try {
      refuseBareByteLimit(a);
      const [name, v] = parseLimitAssignment(a);
      limits[name] = v;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  cliLimits = limits;
  return { positional, flags };
}

export function flag(p: Parsed, name: string): string | undefined {
  return p.flags.get(name)?.[0];
}

export function intFlag(p: Parsed, name: string): number | undefined {
  const v = flag(p, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} expects an integer, got "${v}"`);
  return Number(v);
}

const SIZE_EXAMPLE = 'such as 20GiB or 512MiB';
const bare = (v: string): boolean => /^\s*\d+(?:\.\d+)?\s*$/.test(v);

/** A byte size from a flag; a bare number is refused, since "150" could mean bytes, MiB or GiB. */
export function sizeFlag(p: Parsed, name: string): number | undefined {
  const v = flag(p, name);
  if (v === undefined) return undefined;
  const n = parseSizeWithUnit(v);
  if (n === undefined)
    throw new UsageError(
      `--${name} expects a size with a unit, ${SIZE_EXAMPLE}; got "${v}"${bare(v) ? ` (${v.trim()}B if you mean bytes)` : ''}`,
    );
  return n;
}

/**
 * `--limit file-bytes=4000` is refused like a bare --max-peak. Only byte limits take a unit: a count
 * limit refuses "1B", which tells them apart without a second table of names.
 */
function refuseBareByteLimit(assignment: string): void {
  const eq = assignment.indexOf('=');
  const value = assignment.slice(eq + 1);
  if (eq < 0 || !bare(value)) return;
  try {
    parseLimitAssignment(`${assignment.slice(0, eq)}=1B`);
  } catch {
    return; // a count limit (or an unknown name, reported by the real parse)
  }
  throw new UsageError(
    `--limit ${assignment.slice(0, eq)} expects a size with a unit, such as 4GiB; got "${value}" (${value.trim()}B if you mean bytes)`,
  );
}
