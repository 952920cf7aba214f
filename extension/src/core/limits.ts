import { SnapshotError } from './errors';
import { parseBytes } from '../shared/format';

/**
 * The one limits policy for every snapshot reader (file, gzip stream, in-memory bytes). Each limit
 * bounds memory or CPU that a crafted file could otherwise claim; the defaults admit a 2 GB
 * snapshot with room to spare. Users raise them with `--limit NAME=VALUE` or the `headroom.limits`
 * setting, and every limit error names both.
 */
export interface Limits {
  /** Size of the snapshot file as stored (compressed size for .pickle.gz). */
  fileBytes: number;
  /** Bytes of pickle data, after decompression. */
  pickleBytes: number;
  /** Opcodes (a BigInt: 4 per byte) run per byte of the file past WORK_ALLOWANCE (gzip bombs). */
  workPerByte: number;
  /** Values created plus items inserted into containers. */
  cells: number;
  /** Memo entries stored (what the memo holds, whatever their indices). */
  memoEntries: number;
  /** MARKs open at once (a real snapshot opens one per nesting level). */
  marks: number;
  /** Deepest container nesting (at most 255). */
  depth: number;
  /** Most items in one list, set or tuple. */
  containerItems: number;
  /** Most values on the pickle stack at once. */
  stack: number;
  /** Longest str or bytes value. C++ frame names reach a few KB. */
  stringBytes: number;
  /** All str/bytes payloads longer than 16 bytes, summed (short ones are shared). */
  stringsTotal: number;
  /** Longest LONG1/LONG4 integer payload; snapshot ints fit in 8 bytes. */
  longBytes: number;
  /** Trace entries over all devices. */
  traceEntries: number;
  /**
   * Containers and bytes objects kept on the heap (segments, blocks, unique frames…). Trace entries
   * and frame lists become numbers as they arrive and are not counted. ~150 bytes of heap each.
   */
  objects: number;
}

/** Opcodes any file may execute whatever its size. */
export const WORK_ALLOWANCE = 64 * 2 ** 20;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  fileBytes: 16 * 2 ** 30,
  pickleBytes: 16 * 2 ** 30,
  workPerByte: 64,
  cells: 2_000_000_000,
  memoEntries: 500_000_000,
  marks: 4096,
  depth: 64,
  containerItems: 64_000_000,
  stack: 10_000_000,
  stringBytes: 16 * 2 ** 20,
  stringsTotal: 512 * 2 ** 20,
  longBytes: 64,
  traceEntries: 64_000_000,
  objects: 4_000_000,
});

export type LimitName = keyof Limits;

/** CLI and setting spelling of each limit, and whether its values are byte sizes. */
const SPELLING: Record<LimitName, [string, boolean]> = {
  fileBytes: ['file-bytes', true],
  pickleBytes: ['pickle-bytes', true],
  workPerByte: ['work-per-byte', false],
  cells: ['cells', false],
  memoEntries: ['memo-entries', false],
  marks: ['marks', false],
  depth: ['depth', false],
  containerItems: ['container-items', false],
  stack: ['stack', false],
  stringBytes: ['string-bytes', true],
  stringsTotal: ['strings-total', true],
  longBytes: ['long-bytes', true],
  traceEntries: ['trace-entries', false],
  objects: ['objects', false],
};

export function limitFlagName(name: LimitName): string {
  return SPELLING[name][0];
}

/** A limit was hit: the message says what, which limit, and how to raise it. */
export function limitError(name: LimitName, what: string, offset?: number): SnapshotError {
  const flag = limitFlagName(name);
  return new SnapshotError(
    'limit',
    `${what} (limit ${flag}; if the file is trustworthy, raise it with --limit ${flag}=N or the headroom.limits setting "${flag}")`,
    offset,
  );
}

/** The defaults with the given overrides; depth is capped at 255 (depths are stored in bytes). */
export function resolveLimits(partial?: Partial<Limits>): Limits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  limits.depth = Math.min(limits.depth, 255);
  return limits;
}

/** Parses a count ("50000000", "50M" = 50·10^6) or, for byte limits, a size ("4GiB", "512M"). */
function parseValue(text: string, bytes: boolean): number | undefined {
  if (bytes) return parseBytes(text);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)\s*$/.exec(text);
  if (!m) return undefined;
  const scale = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2]!.toLowerCase()]!;
  return Math.round(Number(m[1]) * scale);
}

function byFlag(flag: string): LimitName | undefined {
  return (Object.keys(SPELLING) as LimitName[]).find((k) => SPELLING[k][0] === flag);
}

/** `NAME=VALUE` (the CLI's --limit). Throws an Error whose message is for the user. */
export function parseLimitAssignment(text: string): [LimitName, number] {
  const eq = text.indexOf('=');
  const name = byFlag(eq < 0 ? text : text.slice(0, eq));
  if (eq < 0 || name === undefined) {
    throw new Error(
      `--limit expects NAME=VALUE with NAME one of ${Object.values(SPELLING)
        .map((s) => s[0])
        .join(', ')}; got "${text}"`,
    );
  }
  const v = parseValue(text.slice(eq + 1), SPELLING[name][1]);
  if (v === undefined || !Number.isSafeInteger(v) || v <= 0)
    throw new Error(
      `--limit ${SPELLING[name][0]} expects a positive ${SPELLING[name][1] ? 'size (e.g. 4GiB)' : 'count (e.g. 50M)'}; got "${text.slice(eq + 1)}"`,
    );
  return [name, v];
}

/**
 * The `headroom.limits` setting: an object keyed by the CLI names, values numbers or strings as
 * for --limit. Unknown keys and bad values are reported in `problems` and otherwise ignored.
 */
export function limitsFromSetting(setting: unknown): { limits: Partial<Limits>; problems: string[] } {
  const limits: Partial<Limits> = {};
  const problems: string[] = [];
  if (typeof setting !== 'object' || setting === null) return { limits, problems };
  for (const [key, value] of Object.entries(setting)) {
    try {
      const [name, v] = parseLimitAssignment(`${key}=${String(value)}`);
      limits[name] = v;
    } catch (e) {
      problems.push((e as Error).message.replace(/^--limit /, 'headroom.limits: '));
    }
  }
  return { limits, problems };
}

function show(n: number, bytes: boolean): string {
  const units: [number, string][] = bytes
    ? [
        [2 ** 30, 'GiB'],
        [2 ** 20, 'MiB'],
        [2 ** 10, 'KiB'],
      ]
    : [
        [1e9, 'G'],
        [1e6, 'M'],
        [1e3, 'K'],
      ];
  for (const [u, name] of units) if (n >= u && n % u === 0) return `${n / u}${name}`;
  return String(n);
}

/** Usage text for the CLI: every limit with its default. */
export function limitsUsage(): string {
  return (Object.keys(SPELLING) as LimitName[]).map((k) => `${SPELLING[k][0]}=${show(DEFAULT_LIMITS[k], SPELLING[k][1])}`).join(', ');
}
