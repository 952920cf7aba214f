import type { DeviceAnalysis } from '../analysis/analyze';
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
import type { AllocatorState } from '../timeline/segments';
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

export interface Remedy {
  id: 'expandable-segments' | 'max-split-size' | 'checkpoint' | 'autocast' | 'smaller-batch' | 'zero-grad-none' | 'memory-cap' | 'reproduce-cap' | 'free-device';
  title: string;
  /** What it changes, concretely. */
  change: string;
  /** What to expect, from the figures. */
  effect: string;
  /** PYTORCH_CUDA_ALLOC_CONF entries a re-run would set. */
  allocConf?: Record<string, string>;
  /** A per-process cap (GiB) a re-run would set: the device that ran out, on a bigger one. */
  capGib?: number;
  /** The line to change, when the remedy names one. */
  line?: { file: string; line: number };
}

/** A user line whose calls into torch.nn modules made activations live at the OOM. */
interface ActivationHolder {
  file: string;
  line: number;
  bytes: number;
  blocks: number;
  largest: number;
}

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

/**
 * Need ≈ fixed + scaled × (batch / current batch): what the failing iteration created (its inputs,
 * its forward so far, the request) scales with the batch; what was there before it (parameters,
 * optimizer state, caches) does not. The need is seen only up to the OOM, so it is a lower bound
 * and `fraction` an upper bound on the batch that fits.
 */
export interface BatchEstimate {
  fixedBytes: number;
  scaledBytes: number;
  /** What PyTorch could have had: live + reserved-unallocated + free on the device. */
  availableBytes: number;
  /** The largest share of the current batch whose need up to this point fits. */
  fraction: number;
}

const MiB = 2 ** 20;
const expandable: Remedy = {
  id: 'expandable-segments',
  title: 'Re-run with expandable_segments:True',
  change: 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow in place instead of new ones being carved, so freed pieces join up',
  effect: 'the free pieces can serve the request',
  allocConf: { expandable_segments: 'True' },
};

/**
 * max_split_size_mb:N keeps blocks above N MiB whole: requests up to N still split cached blocks,
 * bigger ones no longer find their room cut up by them. From the segment map: N is the power of two
 * just above the blocks that sit between the holes (they keep their way of being served), below the
 * request; from a message alone, half the request. PyTorch wants N > 20.
 */
function maxSplit(requestBytes: number, between: number[] = []): Remedy {
  const below = between.filter((b) => b < requestBytes);
  let n = 32;
  while (below.length && n * MiB < Math.max(...below)) n *= 2;
  if (!below.length || n * MiB >= requestBytes) n = Math.max(21, Math.floor(requestBytes / MiB / 2));
  const kept = below.length ? `the ${formatBytes(Math.max(...below))} blocks between the holes still split as before; ` : '';
  return {
    id: 'max-split-size',
    title: `Re-run with max_split_size_mb:${n}`,
    change: `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:${n}: cached blocks above ${n} MiB are not split for smaller requests`,
    effect: `${kept}a ${formatBytes(requestBytes)} request finds whole blocks instead of split remainders`,
    allocConf: { max_split_size_mb: String(n) },
  };
}

/** Sizes of the allocated blocks in the segments of a pool that have holes (what cut them up). */
function blocksBetweenHoles(state: AllocatorState, pool: string): number[] {
  return state.segments
    .filter((g) => g.pool === pool && g.poolId[0] === 0 && g.poolId[1] === 0 && g.blocks.some((b) => b.state === 'free'))
    .flatMap((g) => g.blocks.filter((b) => b.state !== 'free').map((b) => b.size));
}

const raiseCap = (free: number): Remedy => ({ id: 'memory-cap', title: 'Raise or remove the memory cap', change: 'torch.cuda.set_per_process_memory_fraction (or headroom.run.capGib) set higher, or not at all', effect: `${formatBytes(free)} of the device becomes usable` });

const freeDevice = (outside: number, others: { pid: number; used: number | null }[] = []): Remedy => ({
  id: 'free-device',
  title: 'Free the device',
  change: `stop the other processes on this GPU${others.length ? ` (${others.map((p) => `pid ${p.pid}`).join(', ')})` : ''}, or release other frameworks’ memory (TensorFlow, JAX, CuPy pools) in this one`,
  effect: `up to ${formatBytes(outside)} for PyTorch`,
});

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

/** What the demand remedies are computed from (the snapshot's figures; a message gives none). */
interface DemandFacts {
  categories: { category: string; bytes: number }[];
  topLines: OomDiagnosis['topLines'];
  batch?: BatchEstimate;
  /** The line whose module calls made the most of the activations live at the OOM. */
  holder?: ActivationHolder;
  /** The memory of the device that ran out, when known. */
  deviceTotal?: number;
}

function demandRemedies(tried: number, { categories, topLines, batch, holder, deviceTotal }: DemandFacts): Remedy[] {
  // An OOM in a forward has no backward after it to show which tensors were saved for it: what the
  // failing iteration made in module calls before the request stands for its activations.
  const act = Math.max(categories.find((c) => c.category === 'activations')?.bytes ?? 0, batch && holder ? batch.scaledBytes - tried : 0);
  const grads = categories.find((c) => c.category === 'gradients')?.bytes ?? 0;
  const out: Remedy[] = [];
  if (act > 0) {
    const top = holder ?? topLines[0];
    out.push({
      id: 'checkpoint',
      title: 'Checkpoint the layers holding the activations',
      change: `wrap the blocks whose forward saves activations${top ? ` (the top holder: ${top.file}:${top.line})` : ''} in torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`,
      // Checkpointed blocks keep their inputs and recompute one block at a time in backward.
      effect: holder
        ? `the module calls at ${holder.file}:${holder.line} hold ${formatBytes(holder.bytes)} of activations at the OOM in ${holder.blocks} tensors; checkpointing them is expected to free ≈${formatBytes(holder.bytes - holder.largest)} (all but the largest, ${formatBytes(holder.largest)}, recomputed in backward)`
        : `most of the ${formatBytes(act)} of activations live at the OOM is recomputed in backward instead of kept`,
      ...(top ? { line: { file: top.file, line: top.line } } : {}),
    });
    out.push({ id: 'autocast', title: 'Run the forward under autocast', change: 'torch.autocast("cuda", dtype=torch.bfloat16) around the forward pass', effect: `activations in 16 bits: about half of ${formatBytes(act)}` });
  }
  const pct = batch ? Math.floor(batch.fraction * 100) : 0;
  out.push(
    batch && pct > 0 && pct < 100
      ? {
          id: 'smaller-batch',
          title: `Reduce the batch size below ${pct}%`,
          change: `a batch under ${pct}% of the current one (or micro-batches with gradient accumulation): need ≈ ${formatBytes(batch.fixedBytes)} fixed + ${formatBytes(batch.scaledBytes)} × new/current batch up to the OOM`,
          effect: `at ${pct}% that part fits in the ${formatBytes(batch.availableBytes)} PyTorch could have; the rest of the iteration needs more, so go lower`,
        }
      : { id: 'smaller-batch', title: 'Reduce the batch size', change: 'a smaller batch (or gradient accumulation over micro-batches)', effect: `activations scale with the batch; the ${formatBytes(tried)} request shrinks with it` },
  );
  if (grads > 0) out.push({ id: 'zero-grad-none', title: 'zero_grad(set_to_none=True)', change: 'optimizer.zero_grad(set_to_none=True) (the default since torch 2.0)', effect: `the ${formatBytes(grads)} of gradients is freed between steps instead of zeroed in place` });
  const cap = deviceTotal !== undefined ? Math.floor((deviceTotal / 2 ** 30) * 100) / 100 : undefined;
  out.push(
    cap
      ? { id: 'reproduce-cap', title: `Reproduce under a ${cap} GiB cap`, change: `a per-process memory cap of ${cap} GiB, the device that ran out (headroom.run.capGib for one run)`, effect: 'the same OOM on any bigger GPU, to try the fixes above where it is quick', capGib: cap }
      : { id: 'reproduce-cap', title: 'Reproduce on a smaller GPU', change: 'a per-process memory cap (headroom.run.capGib) of the size of the GPU that ran out', effect: 'the same OOM on a bigger GPU, to try fixes quickly' },
  );
  return out;
}

/**
 * From a snapshot with an OOM: the allocator's segments as they were at the OOM event, and the live
 * tensors then. The device's facts from a run folder (its total, the other processes at the OOM)
 * let it see memory outside PyTorch.
 */
export function diagnoseSnapshot(s: Snapshot, a: DeviceAnalysis, oom: OomEvent, device: DeviceFacts = {}): OomDiagnosis {
  const deviceTotal = device.totalBytes;
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
  const held = `${formatBytes(total)} was live${lead ? ` (${lead.category} ${formatBytes(lead.bytes)})` : ''}${topLines[0] ? `, the most at ${topLines[0].file}:${topLines[0].line} (${formatBytes(topLines[0].bytes)})` : ''}`;
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

const FIXED = new Set(['parameters', 'gradients', 'optimizer state']);
const MODULE_CALL = /torch\/nn\/modules\/module\.py$/;

/** Where the failing iteration began: after the last backward pass that ended before the OOM (else the trace's start). */
function iterationStart(ends: Int32Array, oom: OomEvent): number {
  let begin = -1;
  for (const i of ends) if (i <= oom.index && i > begin) begin = i;
  return begin;
}

/**
 * Activations live at the OOM (saved for a backward, or made by the failing iteration's forward),
 * made inside a torch.nn module call, grouped by the user line that made the call: the most.
 */
function activationHolder(s: Snapshot, a: DeviceAnalysis, live: Int32Array, cats: Uint8Array, ends: Int32Array, oom: OomEvent): ActivationHolder | undefined {
  const e = a.replay.elements;
  const begin = iterationStart(ends, oom);
  const by = new Map<number, ActivationHolder>();
  for (const k of live) {
    const cat = CATEGORY_LABELS[cats[k]!]!;
    if (cat !== 'activations' && (FIXED.has(cat) || e.alloc[k]! < Math.max(0, begin))) continue;
    const frames = [...s.stacks.get(e.stack[k]!)];
    if (!frames.some((f) => MODULE_CALL.test(s.frames.fileOf(f)))) continue;
    const f = frames.find((x) => a.classifier.kind(x) === FrameKind.User);
    if (f === undefined) continue;
    const h = by.get(f) ?? { file: s.frames.fileOf(f), line: s.frames.lineOf(f), bytes: 0, blocks: 0, largest: 0 };
    h.bytes += e.size[k]!;
    h.blocks++;
    h.largest = Math.max(h.largest, e.size[k]!);
    by.set(f, h);
  }
  return [...by.values()].sort((x, y) => y.bytes - x.bytes)[0];
}

/** Split the need at the OOM into what the failing iteration made (scales with the batch) and the rest. */
function batchEstimate(a: DeviceAnalysis, live: Int32Array, cats: Uint8Array, ends: Int32Array, oom: OomEvent, unallocated: number): BatchEstimate {
  const e = a.replay.elements;
  const begin = iterationStart(ends, oom);
  let fixed = 0;
  let scaled = oom.requestedBytes;
  for (const k of live) {
    const mine = e.alloc[k]! >= begin && e.alloc[k]! >= 0 && !FIXED.has(CATEGORY_LABELS[cats[k]!]!);
    if (mine) scaled += e.size[k]!;
    else fixed += e.size[k]!;
  }
  const availableBytes = fixed + scaled - oom.requestedBytes + unallocated + oom.deviceFreeBytes;
  return { fixedBytes: fixed, scaledBytes: scaled, availableBytes, fraction: scaled > 0 ? Math.max(0, (availableBytes - fixed) / scaled) : 1 };
}

/** The doctor's report as text (the CLI's --explain-oom and the report page share it). */
export function renderDiagnosis(d: OomDiagnosis): string {
  const out = [`OOM: ${d.kind} — ${d.why}`];
  for (const p of d.pools) out.push(`  ${p.pool} pool${p.poolId[0] || p.poolId[1] ? ` (private ${p.poolId.join(',')})` : ''}: ${formatBytes(p.freeBytes)} free of ${formatBytes(p.reservedBytes)}, largest free block ${formatBytes(p.largestFreeBytes)}`);
  if (d.categories.length) out.push(`  live at the OOM: ${d.categories.map((c) => `${c.category} ${formatBytes(c.bytes)}`).join(', ')}`);
  if (d.batch && d.kind === 'demand') out.push(`  made by the failing iteration (scales with the batch, with the request): ${formatBytes(d.batch.scaledBytes)}; before it: ${formatBytes(d.batch.fixedBytes)}`);
  for (const l of d.topLines) out.push(`  ${l.file}:${l.line} ${l.name}: ${formatBytes(l.bytes)}`);
  out.push('Remedies:');
  for (const r of d.remedies) out.push(`  - ${r.title}: ${r.change}. Expected: ${r.effect}.`);
  return out.join('\n') + '\n';
}

