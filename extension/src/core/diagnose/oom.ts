import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { plain } from '../../shared/text';
import { attributeAt } from '../analysis/attributeAt';
import { resolveAt } from '../analysis/analyze';
import type { PoolFree } from '../analysis/fragmentation';
import type { OomEvent } from '../analysis/ooms';
import { liveAt } from '../analysis/replay';
import { formatBytes } from '../../shared/format';
import type { OomMessage } from '../oom/types';
import type { MessageFacts } from './messageFacts';
import type { DeviceFacts } from '../run/deviceFacts';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, categorize, CATEGORY_LABELS } from '../timeline/categories';
import { allocatorStateAt, poolSummaries } from '../timeline/segments';
import { activationHolder, batchEstimate } from './need';
import type { BatchEstimate } from './need';
import { demandRemedies, expandable, freeDevice, maxSplit, MiB, raiseCap } from './remedies';
import type { Remedy } from './remedies';
import { predictedRemedies } from './predicted';
import { blocksBetweenHoles, segmentMap } from './segmentMap';
import type { SegmentMapRow } from '../protocol';

/**
 * The OOM doctor: why an allocation failed, from a snapshot taken at the OOM or from the message
 * PyTorch printed, with the figures that show it and what to change.
 *  - fragmentation: enough is reserved but unallocated for the request, yet no free block fits;
 *  - cap: the device had room, a per-process memory fraction refused it;
 *  - non-PyTorch: the CUDA context, libraries and other processes hold much of the device;
 *  - demand: the live tensors need it (the top lines say which);
 *  - unknown: a message without the figures to tell (messageDoctor.ts).
 */
export type OomKind = 'fragmentation' | 'cap' | 'non-pytorch' | 'demand' | 'unknown';

export interface OomDiagnosis {
  kind: OomKind;
  /** One sentence with the figures that prove it. */
  why: string;
  requestBytes: number;
  /** Per-pool free bytes and largest free block (snapshots only). */
  pools: PoolFree[];
  /** The segments at the OOM, biggest first (snapshots only). */
  segmentMap?: { rows: SegmentMapRow[]; total: number };
  /** Live bytes at the OOM by inferred category (snapshots only). */
  categories: { category: string; bytes: number }[];
  /** The lines holding the most at the OOM (snapshots only). */
  topLines: { file: string; line: number; name: string; bytes: number }[];
  /** Device used − PyTorch's reserved at the OOM, when known (message, or a snapshot with the device's total). */
  outsideBytes?: number;
  /** Other processes on the GPU at the OOM (a run's NVML reading, or the message's list). */
  others?: { pid: number; used: number | null }[];
  /** Linear model of the need vs the batch at the OOM (demand, snapshots only). */
  batch?: BatchEstimate;
  remedies: Remedy[];
  /** What a message's figures said (diagnoses from a message only). */
  message?: { format: OomMessage['format']; truncated: boolean; facts: MessageFacts };
  /** Where the verdict's evidence came from, when a snapshot replaced the message's. */
  evidence?: string;
}

/** A pool's figures at the OOM as the summary page and `--json` show them. */
export const poolRow = (p: PoolFree) => ({
  pool: p.pool,
  private: p.poolId[0] !== 0 || p.poolId[1] !== 0,
  reserved: p.reservedBytes,
  free: p.freeBytes,
  largestFree: p.largestFreeBytes,
});

/**
 * From a snapshot with an OOM: the allocator's segments as they were at the OOM event, and the live
 * tensors then. The device's facts from a run folder (its total, the other processes at the OOM)
 * let it see memory outside PyTorch.
 */
export function diagnoseSnapshot(s: Snapshot, a: DeviceAnalysis, oom: OomEvent, device: DeviceFacts = {}): OomDiagnosis {
  const deviceTotal = device.total?.();
  const request = oom.requestedBytes;
  const state = allocatorStateAt(s, a, oom.index);
  const pools: PoolFree[] = poolSummaries(state).map((p) => ({
    pool: p.pool,
    poolId: p.poolId,
    segments: p.segments,
    reservedBytes: p.reserved,
    freeBytes: p.free,
    largestFreeBytes: p.largestFree,
  }));
  // A request over 1 MiB comes from the large pool: only its default pool's free blocks could serve it.
  const pool = request > MiB ? 'large' : 'small';
  const usable = pools.filter((p) => p.pool === pool && p.poolId[0] === 0 && p.poolId[1] === 0);
  const unallocated = pools.filter((p) => p.poolId[0] === 0 && p.poolId[1] === 0).reduce((x, p) => x + p.freeBytes, 0);
  const largest = Math.max(0, ...usable.map((p) => p.largestFreeBytes));
  const live = liveAt(a.replay.elements, oom.index);
  const phases = backwardPhases(s, a);
  const cats = categorize(s, a, phases);
  const byCat = new Map<string, number>();
  for (const k of live) byCat.set(CATEGORY_LABELS[cats[k]!]!, (byCat.get(CATEGORY_LABELS[cats[k]!]!) ?? 0) + a.replay.elements.size[k]!);
  const categories = [...byCat].map(([category, bytes]) => ({ category, bytes })).sort((x, y) => y.bytes - x.bytes);
  const batch = batchEstimate(a, live, cats, phases.end, oom, unallocated);
  const holder = activationHolder(s, a, live, cats, phases.end, oom);
  const att = attributeAt(s, a, resolveAt(a, oom.index));
  const topLines = [...att.lines]
    .sort((x, y) => y.selfBytes - x.selfBytes)
    .slice(0, 5)
    .filter((l) => l.selfBytes > 0)
    .map((l) => ({ file: l.file, line: l.line, name: l.name, bytes: l.selfBytes }));
  const base = { requestBytes: request, pools, segmentMap: segmentMap(state), categories, topLines, batch };
  const total = categories.reduce((x, c) => x + c.bytes, 0);
  const lead = categories[0];
  const held = `${formatBytes(total)} was live${lead ? ` (${lead.category} ${formatBytes(lead.bytes)})` : ''}${topLines[0] ? `, the most at ${plain(topLines[0].file)}:${topLines[0].line} (${formatBytes(topLines[0].bytes)})` : ''}`;
  if (unallocated >= request && largest < request)
    return {
      ...base,
      kind: 'fragmentation',
      why: `${formatBytes(unallocated)} was reserved but unallocated at the OOM — more than the ${formatBytes(request)} request — yet the largest free block in the ${pool} pool was ${formatBytes(largest)}: the free memory was in pieces.`,
      remedies: predictedRemedies(s, a, oom, [expandable, maxSplit(request, blocksBetweenHoles(state, pool))]),
    };
  if (oom.deviceFreeBytes >= request)
    return {
      ...base,
      kind: 'cap',
      why: `The device had ${formatBytes(oom.deviceFreeBytes)} free for a ${formatBytes(request)} request: a per-process memory cap (set_per_process_memory_fraction) refused it. Under the cap, ${held}.`,
      remedies: [raiseCap(oom.deviceFreeBytes), ...demandRemedies(request, { categories, topLines })],
    };
  // Device used − reserved at the OOM: the CUDA context, other libraries in this process, other processes.
  const reserved = state.segments.reduce((x, g) => x + g.size, 0);
  const outside = deviceTotal !== undefined ? deviceTotal - oom.deviceFreeBytes - reserved : 0;
  const t = a.replay.timeUs[oom.index];
  const others = device.othersAt?.(t === undefined || Number.isNaN(t) ? null : t) ?? [];
  const listed = others.length
    ? `; other processes on the GPU then: ${others.map((p) => `pid ${p.pid} (${p.used === null ? 'size not reported' : formatBytes(p.used)})`).join(', ')}`
    : '';
  if (deviceTotal !== undefined && outside >= deviceTotal / 4)
    return {
      ...base,
      kind: 'non-pytorch',
      outsideBytes: outside,
      others,
      why: `${formatBytes(outside)} of the ${formatBytes(deviceTotal)} device was outside PyTorch's allocator at the OOM (device used − reserved: the CUDA context, other libraries and other processes${listed}); PyTorch had ${formatBytes(reserved)} reserved, ${held}.`,
      remedies: [freeDevice(outside, others), ...demandRemedies(request, { categories, topLines, batch, holder, deviceTotal })],
    };
  return {
    ...base,
    ...(deviceTotal !== undefined ? { outsideBytes: outside } : {}),
    kind: 'demand',
    why: `The live tensors filled the device: ${held}, and ${formatBytes(oom.deviceFreeBytes)} was free for a ${formatBytes(request)} request.`,
    remedies: demandRemedies(request, { categories, topLines, batch, holder, deviceTotal }),
  };
}
