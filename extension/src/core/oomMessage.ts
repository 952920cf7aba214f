/**
 * Parses CUDA out-of-memory messages of every format PyTorch has printed (format doc §14): the
 * modern sentence form (2.1+, including the 2.1 "capacty" typo, private pools and memory-fraction
 * caps), the legacy parenthesised form (~1.0–2.0), cudaMallocAsync's multi-line form, the absurd-size
 * form and THC's "cuda runtime error (2)".
 */
export type OomFormat = 'modern' | 'legacy' | 'async' | 'absurd' | 'thc';

export interface OomProcess {
  /** null = "this process" (the sentence that includes non-PyTorch memory). */
  pid: number | null;
  usedBytes: number;
}

export interface OomMessage {
  format: OomFormat;
  /** Offset of the message in the text it was found in. */
  offset: number;
  text: string;
  device?: number;
  /** "Tried to allocate": the rounded segment request, not the tensor size. */
  triedBytes?: number;
  totalBytes?: number;
  freeBytes?: number;
  processes: OomProcess[];
  /** The per-process cap ("… allowed;"), when a memory fraction is set. */
  allowedBytes?: number;
  /** "allocated by PyTorch" (modern: includes private-pool free bytes) / "already allocated" (legacy). */
  allocatedBytes?: number;
  privatePoolBytes?: number;
  /** "reserved by PyTorch but unallocated" (modern). */
  reservedUnallocatedBytes?: number;
  /** "reserved in total by PyTorch" / "cached" (legacy). */
  reservedBytes?: number;
  /** cudaMallocAsync: "Requested". */
  requestedBytes?: number;
}

const SIZE = String.raw`(?:\d+ bytes|\d+\.\d{2} (?:KiB|MiB|GiB))`;
const S = (name: string) => `(?<${name}>${SIZE})`;
const MODERN = new RegExp(
  String.raw`CUDA out of memory\. Tried to allocate ${S('tried')}\. GPU (?<gpu>\d+) has a total capaci?ty of ${S('total')} of which ${S('free')} is free\. ` +
    String.raw`(?<procs>(?:(?:Process \d+|Including non-PyTorch memory, this process) has ${SIZE} memory in use\. )*)` +
    String.raw`(?:${S('allowed')} allowed; )?Of the allocated memory ${S('alloc')} is allocated by PyTorch, ` +
    String.raw`(?:with ${S('private')} allocated in private pools \(e\.g\., CUDA Graphs\), )?and ${S('unalloc')} is reserved by PyTorch but unallocated\.`,
  'g',
);
const PROC = new RegExp(String.raw`(?:Process (?<pid>\d+)|Including non-PyTorch memory, this process) has ${S('used')} memory in use\.`, 'g');
const LEGACY = new RegExp(
  String.raw`CUDA out of memory\. Tried to allocate ${S('tried')} \(GPU (?<gpu>\d+); ${S('total')} total capacity; ${S('alloc')} already allocated; ${S('free')} free; ` +
    String.raw`(?:${S('allowed')} allowed; )?${S('reserved')} (?:reserved in total by PyTorch|cached)\)`,
  'g',
);
const ASYNC = new RegExp(
  String.raw`Allocation on device (?<gpu>\d+) would exceed allowed memory\. \(out of memory\)\s*Currently allocated\s*: ${S('alloc')}\s*Requested\s*: ${S('req')}\s*Device limit\s*: ${S('total')}\s*Free \(according to CUDA\): ${S('free')}` +
    String.raw`(?:\s*PyTorch limit \(set by user-supplied memory fraction\)\s*: ${S('allowed')})?`,
  'g',
);
const ABSURD = /CUDA out of memory\. Tried to allocate more than 1EB memory\./g;
const THC = /cuda runtime error \(2\) : out of memory/g;

const UNITS: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };

/** "1024.00 KiB" → 1048576. Two decimals: the figure is within ±0.5 % of the real one. */
export function parseSizeText(s: string): number {
  const [v, unit] = s.split(' ') as [string, string];
  return Math.round(Number(v) * UNITS[unit]!);
}

function sizeOf(g: Record<string, string | undefined>, name: string): number | undefined {
  const v = g[name];
  return v === undefined ? undefined : parseSizeText(v);
}

/** Finds and parses every OOM message in `text` (a traceback, a terminal log, a pasted message). */
export function parseOomMessages(text: string): OomMessage[] {
  const out: OomMessage[] = [];
  for (const m of text.matchAll(MODERN)) {
    const g = m.groups!;
    const processes: OomProcess[] = [];
    for (const p of (g.procs ?? '').matchAll(PROC)) {
      processes.push({ pid: p.groups!.pid ? Number(p.groups!.pid) : null, usedBytes: parseSizeText(p.groups!.used!) });
    }
    out.push({
      format: 'modern',
      offset: m.index!,
      text: m[0],
      device: Number(g.gpu),
      triedBytes: sizeOf(g, 'tried'),
      totalBytes: sizeOf(g, 'total'),
      freeBytes: sizeOf(g, 'free'),
      processes,
      allowedBytes: sizeOf(g, 'allowed'),
      allocatedBytes: sizeOf(g, 'alloc'),
      privatePoolBytes: sizeOf(g, 'private'),
      reservedUnallocatedBytes: sizeOf(g, 'unalloc'),
    });
  }
  for (const m of text.matchAll(LEGACY)) {
    const g = m.groups!;
    out.push({
      format: 'legacy',
      offset: m.index!,
      text: m[0],
      device: Number(g.gpu),
      triedBytes: sizeOf(g, 'tried'),
      totalBytes: sizeOf(g, 'total'),
      freeBytes: sizeOf(g, 'free'),
      processes: [],
      allowedBytes: sizeOf(g, 'allowed'),
      allocatedBytes: sizeOf(g, 'alloc'),
      reservedBytes: sizeOf(g, 'reserved'),
    });
  }
  for (const m of text.matchAll(ASYNC)) {
    const g = m.groups!;
    out.push({
      format: 'async',
      offset: m.index!,
      text: m[0],
      device: Number(g.gpu),
      totalBytes: sizeOf(g, 'total'),
      freeBytes: sizeOf(g, 'free'),
      processes: [],
      allowedBytes: sizeOf(g, 'allowed'),
      allocatedBytes: sizeOf(g, 'alloc'),
      requestedBytes: sizeOf(g, 'req'),
    });
  }
  for (const m of text.matchAll(ABSURD)) out.push({ format: 'absurd', offset: m.index!, text: m[0], processes: [] });
  for (const m of text.matchAll(THC)) out.push({ format: 'thc', offset: m.index!, text: m[0], processes: [] });
  return out.sort((a, b) => a.offset - b.offset);
}
