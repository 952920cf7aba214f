import { SnapshotError } from '../errors';
import { describePy } from '../pickle/values';
import type { PyDict, PyValue } from '../pickle/values';
import { toCount } from './counts';

// The normalizer's checks of the reader's output, shared by its parts.

export const shape = (what: string): SnapshotError => new SnapshotError('wrong-shape', `not a PyTorch memory snapshot: ${what}`);

/** A size, address or id: a non-negative integer below 2^53 (never NaN, a float or 10**30). */
export function num(d: PyDict, key: string, where: string, fallback?: number): number {
  const v = toCount(d[key]);
  if (v !== undefined) return v;
  if (fallback !== undefined && (d[key] === undefined || d[key] === null)) return fallback;
  const raw = d[key];
  const shown = typeof raw === 'number' || typeof raw === 'bigint' ? ` (${String(raw).slice(0, 40)})` : '';
  throw shape(`${where} has ${key} = ${describePy(raw)}${shown}, expected a non-negative integer`);
}

/** Device indices are small; a crafted 10**15 would make per-device arrays and loops explode. */
export const MAX_DEVICE = 1 << 16;

export function deviceOf(d: PyDict, where: string): number {
  const v = num(d, 'device', where, 0);
  if (v >= MAX_DEVICE) throw shape(`${where} has device = ${v}, not a CUDA device index`);
  return v;
}

export function list(v: PyValue | undefined, where: string): PyValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw shape(`${where} is ${describePy(v)}, not a list`);
  return v;
}
