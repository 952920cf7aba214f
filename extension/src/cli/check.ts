import { analyzeDevice } from '../core/analysis/analyze';
import { formatBytes, parseBytes } from '../core/format';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';

export const CHECK_USAGE = `usage: headroom check SNAPSHOT --max-peak SIZE [--max-reserved SIZE] [--device N]

  Exits 1 with a one-line reason when a device's peak (requested bytes) or peak reserved memory
  is over budget, 0 otherwise. SIZE: 20GiB, 512MiB, 1.5G (binary) or 20GB (decimal).`;

function budget(p: ReturnType<typeof parseArgs>, name: string): number | undefined {
  const v = flag(p, name);
  if (v === undefined) return undefined;
  const n = parseBytes(v);
  if (n === undefined) throw new UsageError(`--${name} expects a size such as 20GiB or 512MiB, got "${v}"`);
  return n;
}

export async function checkCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { 'max-peak': { value: true }, 'max-reserved': { value: true }, device: { value: true } });
  if (p.positional.length !== 1) throw new UsageError(CHECK_USAGE);
  const maxPeak = budget(p, 'max-peak');
  const maxReserved = budget(p, 'max-reserved');
  if (maxPeak === undefined && maxReserved === undefined) throw new UsageError('check needs --max-peak and/or --max-reserved\n' + CHECK_USAGE);
  const path = p.positional[0]!;
  const s = await loadForCli(path);
  const only = intFlag(p, 'device');
  if (only !== undefined && !s.devices.includes(only)) throw new UsageError(`device ${only} is not in ${path} (it has: ${s.devices.join(', ') || 'none'})`);
  const devices = only !== undefined ? [only] : s.devices;
  if (devices.length === 0) throw new UsageError(`${path} holds no device with a trace or segments: nothing to check`);
  const within: string[] = [];
  for (const d of devices) {
    const r = analyzeDevice(s, d).replay;
    const peak = r.peak.requestedBytes;
    const reserved = r.reservedPeak.bytes;
    if (maxPeak !== undefined && peak > maxPeak) {
      io.out(`over budget: device ${d} peaks at ${formatBytes(peak)} requested (${peak} B) > --max-peak ${formatBytes(maxPeak)} (${maxPeak} B)\n`);
      return 1;
    }
    if (maxReserved !== undefined && reserved > maxReserved) {
      io.out(`over budget: device ${d} reserves up to ${formatBytes(reserved)} (${reserved} B) > --max-reserved ${formatBytes(maxReserved)} (${maxReserved} B)\n`);
      return 1;
    }
    within.push(`device ${d} peak ${formatBytes(peak)}, reserved ${formatBytes(reserved)}`);
  }
  io.out(`within budget: ${within.join('; ')}\n`);
  return 0;
}
