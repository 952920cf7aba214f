import { analyzeDevice } from '../core/analysis/analyze';
import type { Limit } from '../core/allocator/limit';
import { whatifContext } from '../core/allocator/whatif';
import { parseCallSite } from '../core/scale/checkpoint';
import { predictCheckpoint } from '../core/scale/checkpointPredict';
import { checkpointText } from '../core/scale/text';
import type { Snapshot } from '../core/snapshot/model';
import { flag, UsageError } from './args';
import type { Parsed } from './args';
import { checkpointJson } from './whatifScaleJson';
import { jsonText } from '../shared/text';

/** `--checkpoint FILE:LINE`: the run with those calls checkpointed, under the limit given or the recorded OOM's. */
export function checkpointAnswer(p: Parsed, s: Snapshot, device: number, given: Limit | undefined): string {
  const text = flag(p, 'checkpoint')!;
  const site = parseCallSite(text);
  if (!site) throw new UsageError(`--checkpoint expects FILE:LINE (the line that calls the module), got "${text}"`);
  const a = analyzeDevice(s, device);
  const ctx = whatifContext(s, a, given);
  let x;
  try {
    x = predictCheckpoint(s, a, site, ctx.limit ?? undefined);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
  return flag(p, 'json') !== undefined
    ? jsonText(checkpointJson(x, a.replay.peak.requestedBytes, a.replay.reservedPeak.bytes)) + '\n'
    : checkpointText(x, a.replay.peak.requestedBytes, a.replay.reservedPeak.bytes);
}
