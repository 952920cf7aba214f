import type { PyValue } from '../pickle/values';
import { isDict } from '../pickle/values';

/**
 * The caching allocator's request rounding (`round_size` in CUDACachingAllocator.cpp): 512 B
 * granules, or power-of-two divisions when `roundup_power2_divisions` is set. It cannot see the
 * unsplit remainders of large blocks, so figures built on it are estimates.
 */
export interface Rounding {
  /** Divisions for the 16 power-of-two intervals from 1 MiB up (index 0 also applies below 1 MiB). */
  divisions: number[];
}

const MIN_BLOCK = 512;
const MiB = 1 << 20;

export function roundingFrom(settings: Record<string, PyValue> | null): Rounding {
  const divisions = new Array<number>(16).fill(0);
  const d = settings?.roundup_power2_divisions;
  if (isDict(d)) {
    for (let i = 0; i < 16; i++) {
      const v = d[String(2 ** i)];
      if (typeof v === 'number' && v > 0) divisions[i] = v;
    }
  }
  return { divisions };
}

function divisionsFor(size: number, r: Rounding): number {
  if (size <= MiB) return r.divisions[0]!;
  const i = Math.min(15, Math.floor(Math.log2(size / MiB)));
  return r.divisions[i]!;
}

export function roundSize(size: number, r: Rounding): number {
  if (size < MIN_BLOCK) return MIN_BLOCK;
  const div = divisionsFor(size, r);
  if (div > 1 && size > MIN_BLOCK * div) {
    const floor = 2 ** Math.floor(Math.log2(size));
    if (floor === size) return size;
    const step = floor / 2 ** Math.floor(Math.log2(div));
    if (step < 1) return floor * 2;
    const down = Math.floor(size / step) * step;
    return down === size ? size : down + step;
  }
  return MIN_BLOCK * Math.ceil(size / MIN_BLOCK);
}
