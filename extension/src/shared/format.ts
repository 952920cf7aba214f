// How every surface writes figures: the engine, the CLI, the editor and the webview pages import
// this one module (it imports nothing, so the webview may).
/** No size on a 64-bit machine reaches 16 EiB; anything larger (or not a number) came from a broken file. */
const LIMIT = 2 ** 64;

/** Byte figures for people: binary units, three significant digits ("1.24 GiB", "512 B"). */
export function formatBytes(n: number): string {
  // A crafted snapshot can hold any number: say so rather than print "NaN B" or a billion TiB.
  if (!Number.isFinite(n)) return '? B';
  if (Math.abs(n) >= LIMIT) return `${n < 0 ? '-' : ''}>16 EiB`;
  const sign = n < 0 ? '-' : '';
  let v = Math.abs(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  // Per-iteration averages land a hair off whole bytes (3.9999…): those are whole bytes.
  if (u === 0) return `${sign}${Math.abs(v - Math.round(v)) < 0.01 ? Math.round(v) : v.toFixed(1)} B`;
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${sign}${v.toFixed(digits)} ${units[u]}`;
}

const UNIT: Record<string, number> = {
  '': 1,
  b: 1,
  k: 2 ** 10,
  kib: 2 ** 10,
  kb: 1e3,
  m: 2 ** 20,
  mib: 2 ** 20,
  mb: 1e6,
  g: 2 ** 30,
  gib: 2 ** 30,
  gb: 1e9,
  t: 2 ** 40,
  tib: 2 ** 40,
  tb: 1e12,
  p: 2 ** 50,
  pib: 2 ** 50,
  pb: 1e15,
};

/**
 * Parses a budget such as "20GiB", "1.5 GiB", "512M" or "800000000". KiB/MiB/GiB and bare K/M/G are
 * binary; KB/MB/GB are decimal, as their names say. Returns undefined when it is not a size.
 */
export function parseBytes(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = UNIT[m[2]!.toLowerCase()];
  if (unit === undefined) return undefined;
  return Math.round(Number(m[1]) * unit);
}

/**
 * A size the user typed where a bare number would be ambiguous (is `--max-peak 150` bytes, MiB or
 * GiB?): like {@link parseBytes}, but the unit is required ("150B" for bytes).
 */
export function parseSizeWithUnit(text: string): number | undefined {
  return /[a-zA-Z]\s*$/.test(text) ? parseBytes(text) : undefined;
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
