import type { PyValue } from '../pickle/values';

export function toNumber(v: PyValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/**
 * A size, address, time or id: a non-negative integer below 2^53, or undefined. The model never
 * holds NaN, a float, a negative or a rounded huge value (10**30 bytes, a year-10^16 time).
 */
export function toCount(v: PyValue | undefined): number | undefined {
  const n = typeof v === 'bigint' ? (v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1) : toNumber(v);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

// toCount for the rows' fast path (rowSink.ts): Number.isSafeInteger's call was 1 % of a 10M-event load.
const isCount = (x: number): boolean => x >= 0 && x <= Number.MAX_SAFE_INTEGER && Math.floor(x) === x;

/** A row's addr, size and stream are counts, its time a count or NaN (none). */
export const countsIn = (v: Float64Array): boolean =>
  isCount(v[0]!) && isCount(v[1]!) && isCount(v[2]!) && (v[3] !== v[3] || isCount(v[3]!));
