import { analyzeDevice } from '../core/analysis/analyze';
import { AllocConfError } from '../core/allocator/confString';
import type { Limit } from '../core/allocator/limit';
import { WHATIF_CANNOT_KNOW, whatif } from '../core/allocator/whatif';
import type { WhatifReport } from '../core/allocator/whatif';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';
import { whatifText } from '../core/allocator/whatifText';
import { whatifJson } from './whatifReport';
import { SCALE_FLAGS, SCALE_USAGE, scaleCommand } from './whatifScale';
import { jsonText } from '../shared/text';

export const WHATIF_USAGE = `usage: headroom whatif SNAPSHOT --alloc-conf K:V,… [--alloc-conf …] [--device-gib N | --cap-gib N] [--device N] [--json]

  What another PYTORCH_CUDA_ALLOC_CONF would do to this run: its requests replayed through the
  caching allocator under each setting (expandable_segments, max_split_size_mb,
  roundup_power2_divisions, garbage_collection_threshold, max_non_split_rounding_mb;
  docs/allocator-replay.md), the recorded and predicted peaks side by side, with the OOMs each
  would hit or avoid. K=V is read as K:V.
  --device-gib N  the memory PyTorch can have on the device (its size less what others hold)
  --cap-gib N     a per-process cap (set_per_process_memory_fraction × the device's size)
  Without either: the limit the recorded OOM shows, else none. ${WHATIF_CANNOT_KNOW}
  Example: headroom whatif oom.pickle --alloc-conf expandable_segments:True --alloc-conf max_split_size_mb:128

${SCALE_USAGE}`;

const gib = (p: ReturnType<typeof parseArgs>, name: string): number | undefined => {
  const text = flag(p, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--${name} expects a positive number of GiB, got "${text}"`);
  return Math.round(n * 2 ** 30);
};

export async function whatifCommand(argv: readonly string[], io: Io): Promise<number> {
  const value = { value: true };
  const scaleSpec = {
    'batch-scale': value,
    'seq-scale': value,
    checkpoint: value,
    batch: value,
    'max-batch': {},
    'recorded-batch': value,
    with: value,
    'with-batch': value,
    'with-scale': value,
    'margin-pct': value,
  };
  const p = parseArgs(argv, {
    'alloc-conf': { value: true, repeat: true },
    'device-gib': value,
    'limit-gib': value,
    'cap-gib': value,
    device: value,
    json: {},
    ...scaleSpec,
  });
  if (p.positional.length !== 1) throw new UsageError(WHATIF_USAGE);
  const confs = p.flags.get('alloc-conf') ?? [];
  const scaled = SCALE_FLAGS.some((f) => p.flags.has(f));
  if (scaled && confs.length)
    throw new UsageError(
      'ask one thing at a time: --alloc-conf, or a size (--batch-scale, --batch, --max-batch, --seq-scale, --checkpoint)',
    );
  if (!confs.length && !scaled) throw new UsageError('whatif needs at least one --alloc-conf, or a batch question\n' + WHATIF_USAGE);
  const deviceBytes = gib(p, 'device-gib') ?? gib(p, 'limit-gib'); // --limit-gib: the earlier name
  const capBytes = gib(p, 'cap-gib');
  if (deviceBytes !== undefined && capBytes !== undefined) throw new UsageError('give --device-gib or --cap-gib, not both');
  const given: Limit | undefined =
    capBytes !== undefined ? { bytes: capBytes, cap: true } : deviceBytes !== undefined ? { bytes: deviceBytes, cap: false } : undefined;
  const s = await loadForCli(p.positional[0]!);
  const device = intFlag(p, 'device') ?? s.devices[0];
  if (device === undefined || !s.devices.includes(device)) throw new UsageError(`no device ${device ?? ''} in the snapshot`);
  if (scaled) {
    io.out(await scaleCommand(p, s, device, given));
    return 0;
  }
  let report: WhatifReport;
  try {
    report = whatif(s, analyzeDevice(s, device), confs, given);
  } catch (e) {
    if (e instanceof AllocConfError) throw new UsageError(`--alloc-conf: ${e.message}`);
    throw e;
  }
  io.out(flag(p, 'json') !== undefined ? jsonText(whatifJson(report)) + '\n' : whatifText(report));
  return 0;
}
