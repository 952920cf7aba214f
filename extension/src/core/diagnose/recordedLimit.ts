import { configFrom } from '../allocator/config';
import { segmentSize } from '../allocator/limit';
import type { Limit } from '../allocator/limit';
import { predictAllocator } from '../allocator/predict';
import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import type { OomEvent } from '../analysis/ooms';
import { reservedAt } from '../analysis/replay';
import type { Snapshot } from '../snapshot/model';

/** What PyTorch could have had at a recorded OOM, without a memory fraction: its reserve then plus the device's free bytes. */
export const deviceLimitAt = (a: DeviceAnalysis, oom: OomEvent): number => reservedAt(a.replay, oom.index) + oom.deviceFreeBytes;

/**
 * The limit a recorded OOM shows: the device's (reserved + free then) where the recorded settings
 * fail there too; else a memory fraction refused the request, and the cap lies between the most
 * the run had reserved by then and that reserve plus the segment it asked for.
 */
export function recordedLimit(s: Snapshot, a: DeviceAnalysis, oom: OomEvent): RecordedLimit | undefined {
  // One replay per OOM, whoever asks (the doctor's remedies, the what-if section, headroom whatif).
  let byOom = known.get(a);
  if (!byOom) known.set(a, (byOom = new Map()));
  if (!byOom.has(oom.index)) byOom.set(oom.index, readLimit(s, a, oom));
  return byOom.get(oom.index);
}

type RecordedLimit = { limit: Limit; range?: [number, number] };
const known = new WeakMap<DeviceAnalysis, Map<number, RecordedLimit | undefined>>();

function readLimit(s: Snapshot, a: DeviceAnalysis, oom: OomEvent): RecordedLimit | undefined {
  const device = deviceLimitAt(a, oom);
  const p = predictAllocator(s, a.device, configFrom(s.allocatorSettings), { bytes: device, cap: false });
  if (!p.supported) return undefined;
  if (p.ooms.some((o) => o.index <= oom.index)) return { limit: { bytes: device, cap: false } };
  const before = reservedAt(a.replay, oom.index);
  let most = Math.max(before, a.replay.start.reservedBytes);
  const steps = a.replay.reservedSteps;
  for (let k = 0; k < steps.index.length && steps.index[k]! < oom.index; k++) most = Math.max(most, steps.bytes[k]!);
  const range: [number, number] = [most, Math.max(most, before + segmentSize(oom.requestedBytes) - 1)];
  return { limit: { bytes: range[0], cap: true }, range };
}
