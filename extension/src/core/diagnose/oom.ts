import type { DeviceAnalysis } from '../analysis/analyze';
import { plain } from '../text';
import { attributeAt, resolveAt } from '../analysis/analyze';
import type { PoolFree } from '../analysis/fragmentation';
import type { OomEvent } from '../analysis/ooms';
import { liveAt } from '../analysis/replay';
import { formatBytes } from '../format';
import { FrameKind } from '../analysis/userCode';
import type { OomMessage } from '../oomMessage';
import type { DeviceFacts } from '../run/deviceFacts';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, categorize, CATEGORY_LABELS } from '../timeline/categories';
import { allocatorStateAt, poolSummaries } from '../timeline/segments';
import { activationHolder, batchEstimate } from './need';
import type { BatchEstimate } from './need';
import { blocksBetweenHoles, demandRemedies, expandable, freeDevice, maxSplit, MiB, raiseCap } from './remedies';
import type { Remedy } from './remedies';
import { segmentMap } from './segmentMap';
import type { SegmentMapRow } from '../protocol';

/**
 * The OOM doctor: why an allocation failed, from a snapshot taken at the OOM or from the message
 * PyTorch printed, with the figures that show it and what to change.
 *  - fragmentation: enough is reserved but unallocated for the request, yet no free block fits;
 *  - cap: the device had room, a per-process memory fraction refused it;
 *  - non-PyTorch: the CUDA context, libraries and other processes hold much of the device;
 *  - demand: the live tensors need it (the top lines say which).
 */
export type OomKind = 'fragmentation' | 'cap' | 'non-pytorch' | 'demand';

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
}

/** From the message alone (pasted, or found in a terminal). */
export function diagnoseMessage(m: OomMessage): OomDiagnosis {
  const tried = m.triedBytes ?? m.requestedBytes ?? 0;
  const unalloc = m.reservedUnallocatedBytes ?? (m.reservedBytes !== undefined && m.allocatedBytes !== undefined ? m.reservedBytes - m.allocatedBytes : undefined);
  const self = m.processes.find((p) => p.pid === null)?.usedBytes;
  const others = m.processes.filter((p) => p.pid !== null).reduce((a, p) => a + p.usedBytes, 0);
  const pytorch = (m.allocatedBytes ?? 0) + (unalloc ?? 0);
  const nonPyTorch = self !== undefined ? Math.max(0, self - pytorch) : undefined;
  const base = { requestBytes: tried, pools: [], categories: [], topLines: [] };
  if (unalloc !== undefined && unalloc >= tried && tried > 0)
    return { ...base, kind: 'fragmentation', why: `${formatBytes(unalloc)} is reserved by PyTorch but unallocated, more than the ${formatBytes(tried)} asked for, yet no free block was large enough: the free memory is in pieces.`, remedies: [expandable, maxSplit(tried)] };
  if (m.allowedBytes !== undefined && m.freeBytes !== undefined && m.freeBytes >= tried)
    return {
      ...base,
      kind: 'cap',
      why: `The device had ${formatBytes(m.freeBytes)} free, but this process may use only ${formatBytes(m.allowedBytes)} (a per-process memory fraction) and already has ${formatBytes(self ?? pytorch)}.`,
      remedies: [raiseCap(m.freeBytes)],
    };
  const outside = (nonPyTorch ?? 0) + others;
  if (m.totalBytes !== undefined && outside >= m.totalBytes / 4)
    return {
      ...base,
      kind: 'non-pytorch',
      outsideBytes: outside,
      others: m.processes.flatMap((p) => (p.pid === null ? [] : [{ pid: p.pid, used: p.usedBytes }])),
      why: `${formatBytes(outside)} of the ${formatBytes(m.totalBytes)} device is outside PyTorch's allocator (${nonPyTorch !== undefined ? `${formatBytes(nonPyTorch)} in this process beside PyTorch` : 'this process: unknown'}${others ? `, ${formatBytes(others)} in other processes` : ''}).`,
      remedies: [freeDevice(outside, m.processes.flatMap((p) => (p.pid === null ? [] : [{ pid: p.pid, used: p.usedBytes }])))],
    };
  return { ...base, kind: 'demand', why: `The live tensors need more: PyTorch has ${formatBytes(m.allocatedBytes ?? 0)} allocated and only ${formatBytes(unalloc ?? 0)} reserved but unused, and the request is ${formatBytes(tried)}.`, remedies: demandRemedies(tried, { categories: [], topLines: [], ...(m.totalBytes !== undefined ? { deviceTotal: m.totalBytes } : {}) }) };
}

/**
 * From a snapshot with an OOM: the allocator's segments as they were at the OOM event, and the live
 * tensors then. The device's facts from a run folder (its total, the other processes at the OOM)
 * let it see memory outside PyTorch.
 */
export function diagnoseSnapshot(s: Snapshot, a: DeviceAnalysis, oom: OomEvent, device: DeviceFacts = {}): OomDiagnosis {
  const deviceTotal = device.total?.();
  const request = oom.requestedBytes;
  const state = allocatorStateAt(s, a, oom.index);
  const pools: PoolFree[] = poolSummaries(state).map((p) => ({ pool: p.pool, poolId: p.poolId, segments: p.segments, reservedBytes: p.reserved, freeBytes: p.free, largestFreeBytes: p.largestFree }));
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
  const topLines = [...att.lines].sort((x, y) => y.selfBytes - x.selfBytes).slice(0, 5).filter((l) => l.selfBytes > 0).map((l) => ({ file: l.file, line: l.line, name: l.name, bytes: l.selfBytes }));
  const base = { requestBytes: request, pools, segmentMap: segmentMap(state), categories, topLines, batch };
  const total = categories.reduce((x, c) => x + c.bytes, 0);
  const lead = categories[0];
  const held = `${formatBytes(total)} was live${lead ? ` (${lead.category} ${formatBytes(lead.bytes)})` : ''}${topLines[0] ? `, the most at ${plain(topLines[0].file)}:${topLines[0].line} (${formatBytes(topLines[0].bytes)})` : ''}`;
  if (unallocated >= request && largest < request)
    return { ...base, kind: 'fragmentation', why: `${formatBytes(unallocated)} was reserved but unallocated at the OOM — more than the ${formatBytes(request)} request — yet the largest free block in the ${pool} pool was ${formatBytes(largest)}: the free memory was in pieces.`, remedies: [expandable, maxSplit(request, blocksBetweenHoles(state, pool))] };
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
  const listed = others.length ? `; other processes on the GPU then: ${others.map((p) => `pid ${p.pid} (${p.used === null ? 'size not reported' : formatBytes(p.used)})`).join(', ')}` : '';
  if (deviceTotal !== undefined && outside >= deviceTotal / 4)
    return {
      ...base,
      kind: 'non-pytorch',
      outsideBytes: outside,
      others,
      why: `${formatBytes(outside)} of the ${formatBytes(deviceTotal)} device was outside PyTorch's allocator at the OOM (device used − reserved: the CUDA context, other libraries and other processes${listed}); PyTorch had ${formatBytes(reserved)} reserved, ${held}.`,
      remedies: [freeDevice(outside, others), ...demandRemedies(request, { categories, topLines, batch, holder, deviceTotal })],
    };
  return { ...base, ...(deviceTotal !== undefined ? { outsideBytes: outside } : {}), kind: 'demand', why: `The live tensors filled the device: ${held}, and ${formatBytes(oom.deviceFreeBytes)} was free for a ${formatBytes(request)} request.`, remedies: demandRemedies(request, { categories, topLines, batch, holder, deviceTotal }) };
}

/** The doctor's report as text (the CLI's --explain-oom and the report page share it). */
export function renderDiagnosis(d: OomDiagnosis): string {
  const out = [`OOM: ${d.kind} — ${d.why}`];
  for (const p of d.pools) out.push(`  ${p.pool} pool${p.poolId[0] || p.poolId[1] ? ` (private ${p.poolId.join(',')})` : ''}: ${formatBytes(p.freeBytes)} free of ${formatBytes(p.reservedBytes)}, largest free block ${formatBytes(p.largestFreeBytes)}`);
  if (d.categories.length) out.push(`  live at the OOM: ${d.categories.map((c) => `${c.category} ${formatBytes(c.bytes)}`).join(', ')}`);
  if (d.batch && d.kind === 'demand') out.push(`  made by the failing iteration (scales with the batch, with the request): ${formatBytes(d.batch.scaledBytes)}; before it: ${formatBytes(d.batch.fixedBytes)}`);
  for (const l of d.topLines) out.push(`  ${plain(l.file)}:${l.line} ${plain(l.name)}: ${formatBytes(l.bytes)}`);
  out.push('Remedies:');
  for (const r of d.remedies) out.push(`  - ${r.title}: ${r.change}. Expected: ${r.effect}.`);
  return out.join('\n') + '\n';
}

