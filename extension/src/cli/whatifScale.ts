import { analyzeDevice } from '../core/analysis/analyze';
import type { Limit } from '../core/allocator/limit';
import { ScaleAskError, scaleReport } from '../core/scale/report';
import type { ScaleQuestion, SecondRun } from '../core/scale/report';
import type { Snapshot } from '../core/snapshot/model';
import { flag, intFlag, UsageError } from './args';
import type { Parsed } from './args';
import { loadForCli } from './load';
import { scaleText } from '../core/scale/text';
import { checkpointAnswer } from './whatifCheckpoint';
import { scaleJsonText } from './whatifScaleJson';

export const SCALE_FLAGS = ['batch-scale', 'batch', 'max-batch', 'seq-scale', 'checkpoint'] as const;
export const SCALE_USAGE = `usage: headroom whatif SNAPSHOT (--batch-scale F | --batch N | --max-batch | --seq-scale F | --checkpoint FILE:LINE) [--recorded-batch M]
                       [--with SNAPSHOT2 (--with-batch N2 | --with-scale R)] [--margin-pct P] [--device-gib N | --cap-gib N] [--json]

  The run at another batch, from its recording: parameters, gradients, optimizer state, casts and
  workspaces kept, the iteration's activations and temporaries scaled (docs/scale-prediction.md),
  the requested peak summed and the reserved peak from the allocator replay of the scaled requests.
  --batch-scale F    F times the recorded batch     --batch N   with --recorded-batch M (N/M)
  --max-batch        the largest batch (with --recorded-batch; else a scale in 16ths) whose predicted
                     run stays under the limit less --margin-pct (default 5)
  --seq-scale F      F times the recorded sequence length (one run: linear; --with a run at another
                     length, --with-scale R, fits each size as a power of it: attention's T×T too)
  --checkpoint FILE:LINE  the calls made at that line (x = block(x)) checkpointed: their activations
                     made again in the backward instead of kept (non-reentrant checkpointing)
  --with SNAPSHOT2   the same script at another batch (--with-batch N2, or --with-scale R): each
                     allocation's size fitted from the two runs instead of assumed
  Examples: headroom whatif snapshot.pickle --batch 64 --recorded-batch 32
            headroom whatif snapshot.pickle --max-batch --recorded-batch 32 --device-gib 80`;

const positive = (p: Parsed, name: string): number | undefined => {
  const v = flag(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--${name} expects a positive number, got "${v}"`);
  return n;
};

function question(p: Parsed, recorded: number | undefined): ScaleQuestion {
  const asked = SCALE_FLAGS.filter((f) => flag(p, f) !== undefined);
  if (asked.length !== 1) throw new UsageError(`ask one of --batch-scale, --batch, --max-batch, --seq-scale, --checkpoint\n${SCALE_USAGE}`);
  if (asked[0] === 'max-batch') return { kind: 'max', margin: (positive(p, 'margin-pct') ?? 5) / 100 };
  if (asked[0] === 'batch-scale') return { kind: 'scale', scale: positive(p, 'batch-scale')!, axis: 'batch' };
  if (asked[0] === 'seq-scale') return { kind: 'scale', scale: positive(p, 'seq-scale')!, axis: 'seq' };
  const n = positive(p, 'batch')!;
  if (!recorded) throw new UsageError('--batch N needs the recorded batch: --recorded-batch M (or ask --batch-scale F)');
  return { kind: 'scale', scale: n / recorded, axis: 'batch' };
}

async function secondRun(p: Parsed, recorded: number | undefined, device: number): Promise<SecondRun | undefined> {
  const path = flag(p, 'with');
  if (path === undefined) return undefined;
  const n = positive(p, 'with-batch');
  const r = positive(p, 'with-scale');
  if ((n === undefined) === (r === undefined))
    throw new UsageError('--with needs its batch: --with-batch N2 (with --recorded-batch) or --with-scale R');
  if (n !== undefined && !recorded) throw new UsageError('--with-batch needs --recorded-batch M');
  const ratio = r ?? n! / recorded!;
  if (ratio === 1) throw new UsageError('--with must be a run at another batch');
  const snapshot = await loadForCli(path);
  if (!snapshot.devices.includes(device)) throw new UsageError(`no device ${device} in ${path}`);
  return { snapshot, analysis: analyzeDevice(snapshot, device), ratio };
}

/** `headroom whatif` with a batch question (cli/whatif.ts hands over when one is asked). */
export async function scaleCommand(p: Parsed, s: Snapshot, device: number, given: Limit | undefined): Promise<string> {
  if (flag(p, 'checkpoint') !== undefined && SCALE_FLAGS.filter((f) => flag(p, f) !== undefined).length === 1)
    return checkpointAnswer(p, s, device, given);
  const recorded = intFlag(p, 'recorded-batch');
  if (recorded !== undefined && recorded < 1) throw new UsageError('--recorded-batch expects a batch of 1 or more');
  const q = question(p, recorded);
  const second = await secondRun(p, recorded, device);
  try {
    const r = scaleReport(s, analyzeDevice(s, device), q, given, recorded, second);
    return flag(p, 'json') !== undefined ? scaleJsonText(r) : scaleText(r);
  } catch (e) {
    if (e instanceof ScaleAskError || e instanceof RangeError)
      throw new UsageError(`${e.message}${q.kind === 'max' && !given ? '; give --device-gib N or --cap-gib N' : ''}`);
    throw e;
  }
}
