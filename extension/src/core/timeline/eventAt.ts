// A leaf: the leak check, the markers and the level of detail all search the trace by time.

/** First event at or after time t (n if none). */
export function eventAt(time: Float64Array, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (time[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
