import { formatBytes } from '../../shared/format';

/** What a leaking line creates per iteration, as the detector measured it. */
export interface LineGrowth {
  bytesPerIteration: number;
  blocksPerIteration: number;
  /** The median size of the blocks it keeps. */
  blockBytes: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Figures that add up at a glance: "2 tensors of 2.00 MiB per iteration = 4.00 MiB" when the
 * line keeps whole tensors of one size each iteration; else the total with the average, or one
 * tensor every few iterations. Never "0 tensors" or a raw fraction.
 */
export function keepsPerIteration(l: LineGrowth): string {
  const total = formatBytes(l.bytesPerIteration);
  const n = l.blocksPerIteration;
  const whole = Math.round(n);
  if (whole >= 1 && Math.abs(n - whole) < 0.05 && Math.abs(whole * l.blockBytes - l.bytesPerIteration) <= 0.02 * l.bytesPerIteration) {
    return whole === 1
      ? `1 tensor of ${total} per iteration`
      : `${plural(whole, 'tensor', 'tensors')} of ${formatBytes(l.blockBytes)} per iteration = ${total}`;
  }
  if (n >= 1)
    return `${total} per iteration (${n.toFixed(1)} tensors per iteration, ${formatBytes(l.bytesPerIteration / n)} each on average)`;
  if (n > 0)
    return `${total} per iteration (one tensor of ${formatBytes(l.blockBytes)} every ${plural(Math.max(2, Math.round(1 / n)), 'iteration', 'iterations')})`;
  return `${total} per iteration`;
}
