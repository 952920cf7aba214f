import { analyzeDevice } from '../core/analysis/analyze';
import { AllocConfError, applyAllocConf } from '../core/allocator/confString';
import { configFrom } from '../core/allocator/config';
import { predictAllocator } from '../core/allocator/predict';
import { replayAllocator } from '../core/allocator/replay';
import { deviceLimitAt } from '../core/diagnose/predicted';
import { formatBytes as b } from '../core/format';
import { plain } from '../core/text';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';

export const WHATIF_USAGE = `usage: headroom whatif SNAPSHOT --alloc-conf K:V,… [--alloc-conf …] [--limit-gib N] [--device N] [--json]

  Replays the run's requests through the caching allocator under other PYTORCH_CUDA_ALLOC_CONF
  settings (expandable_segments, max_split_size_mb, roundup_power2_divisions,
  max_non_split_rounding_mb; docs/allocator-replay.md) and prints the recorded and predicted peaks side by side, with the
  OOMs each would hit or avoid. --limit-gib N: the memory PyTorch may take (a per-process cap, or
  the device less what other programs hold); without it, the limit the recorded OOM shows
  (reserved + free at that instant), else none. A snapshot does not record a memory fraction: pass
  it. The prediction cannot know memory outside PyTorch beyond that limit, nor the timing of frees
  on other streams.`;

export async function whatifCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { 'alloc-conf': { value: true, repeat: true }, 'limit-gib': { value: true }, device: { value: true }, json: {} });
  if (p.positional.length !== 1) throw new UsageError(WHATIF_USAGE);
  const confs = p.flags.get('alloc-conf') ?? [];
  if (!confs.length) throw new UsageError('whatif needs at least one --alloc-conf\n' + WHATIF_USAGE);
  const limitText = flag(p, 'limit-gib');
  const limitGib = limitText === undefined ? undefined : Number(limitText);
  if (limitGib !== undefined && !(limitGib > 0)) throw new UsageError(`--limit-gib expects a positive number, got "${limitText}"`);
  const s = await loadForCli(p.positional[0]!);
  const device = intFlag(p, 'device') ?? s.devices[0];
  if (device === undefined || !s.devices.includes(device)) throw new UsageError(`no device ${device ?? ''} in ${plain(p.positional[0]!)}`);
  const a = analyzeDevice(s, device);
  const base = configFrom(s.allocatorSettings);
  const exact = replayAllocator(s, device);
  // The recorded OOM shows what PyTorch could have had then: what it reserved plus what was free.
  const oom = a.ooms[0];
  const fromOom = oom ? deviceLimitAt(a, oom) : undefined;
  const limit = limitGib !== undefined ? Math.round(limitGib * 2 ** 30) : fromOom;
  const limitFrom = limitGib !== undefined ? '--limit-gib' : fromOom !== undefined ? `the recorded OOM at event #${oom!.index} (reserved + free then)` : 'none';
  const recorded = { requested_peak_bytes: a.replay.peak.requestedBytes, allocated_peak_bytes: exact.supported ? exact.allocatedPeak : a.replay.peak.allocatedBytes, allocated_exact: exact.supported && exact.mismatchCount === 0, reserved_peak_bytes: a.replay.reservedPeak.bytes };
  const predicted = confs.map((conf) => {
    let cfg;
    try {
      cfg = applyAllocConf(base, conf);
    } catch (e) {
      if (e instanceof AllocConfError) throw new UsageError(`--alloc-conf ${conf}: ${e.message}`);
      throw e;
    }
    const r = predictAllocator(s, device, cfg, { bytes: limit ?? Infinity, cap: false });
    return r.supported
      ? { alloc_conf: conf, reserved_peak_bytes: r.reservedPeak, allocated_peak_bytes: r.allocatedPeak, ooms: r.ooms.map((o) => ({ event: o.index, bytes: o.bytes, recorded: o.recorded })), avoided: r.avoided }
      : { alloc_conf: conf, unsupported: r.reason };
  });
  if (flag(p, 'json') !== undefined) {
    io.out(JSON.stringify({ device, limit_bytes: limit ?? null, limit_from: limitFrom, recorded, predicted }, null, 1) + '\n');
    return 0;
  }
  io.out(`device ${device}: requested peak ${b(recorded.requested_peak_bytes)}, allocated peak ${b(recorded.allocated_peak_bytes)}${recorded.allocated_exact ? '' : ' (estimate)'}, reserved peak ${b(recorded.reserved_peak_bytes)}${a.ooms.length ? `, ${a.ooms.length} OOM(s)` : ''} (recorded)\n`);
  io.out(`limit: ${limit !== undefined ? b(limit) : 'none'} (${limitFrom})\n`);
  for (const x of predicted) {
    if ('unsupported' in x) {
      io.out(`  ${plain(x.alloc_conf)}: not predicted: ${x.unsupported}\n`);
      continue;
    }
    const oomText = x.ooms.length ? `OOM at event #${x.ooms.map((o) => o.event).join(', #')}` : 'no OOM';
    const avoided = x.avoided.length ? `; the recorded OOM at event #${x.avoided.join(', #')} does not happen` : '';
    io.out(`  ${plain(x.alloc_conf)}: reserved peak ${b(x.reserved_peak_bytes)} (${pctChange(x.reserved_peak_bytes, recorded.reserved_peak_bytes)}), allocated peak ${b(x.allocated_peak_bytes)}, ${oomText}${avoided}\n`);
  }
  return 0;
}

const pctChange = (x: number, base: number) => (base > 0 ? `${x >= base ? '+' : '−'}${Math.abs(Math.round(((x - base) / base) * 100))} %` : 'n/a');

