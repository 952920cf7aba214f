import type { OomMessage, OomProcess } from '../oomMessage';

/**
 * The formats PyTorch has printed for a CUDA OOM (docs/oom-formats.md), as patterns over the
 * flattened text (flatten.ts: no whitespace). Each message's fields are nested optional groups, so
 * a message cut short still yields the figures before the cut.
 */
export type OomFormat = 'thc' | 'cached' | 'reserved' | 'reserved-hint' | 'modern' | 'async' | 'absurd' | 'cuda-error' | 'cublas' | 'fragment';

type Parsed = Omit<OomMessage, 'offset' | 'end' | 'text'>;
export interface Format {
  re: RegExp;
  read(g: Record<string, string | undefined>): Parsed | null;
}

const S = String.raw`\d+(?:\.\d+)?(?:bytes|KiB|MiB|GiB)`;
const UNITS: Record<string, number> = { bytes: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 };

/** "20.00MiB" or "20.00 MiB" → bytes. Two decimals: within ±0.5 % of the real figure. */
export function sizeBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB)$/i.exec(s.trim());
  if (!m) throw new RangeError(`not a size: ${s}`);
  return Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
}
export const parseSizeText = sizeBytes;

// Readable patterns: spaces are dropped, since the flattened text has none.
const flat = (s: string) => s.replace(/ /g, '');
/** `a(?:b(?:c)?)?`: each piece only after the one before it. */
const chain = (pieces: string[]): string => pieces.reduceRight((tail, p) => (tail ? `${p}(?:${tail})?` : p), '');
const size = (g: Record<string, string | undefined>, k: string) => (g[k] === undefined ? undefined : sizeBytes(g[k]!));
const num = (g: Record<string, string | undefined>, k: string) => (g[k] === undefined || g[k] === '' ? undefined : Number(g[k]));
/** Only the figures present: an absent one is not zero. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const HEAD = String.raw`(?<head>(?:CUDA|HIP) out of memory \.)? Tried to allocate (?<tried>${S})`;
const WHO = String.raw`(?:Process \d+|Including non-PyTorch memory, this process)`;
const PROC = new RegExp(flat(String.raw`(?:Process (?<pid>\d+)|Including non-PyTorch memory, this process) has (?<used>${S})`), 'gi');
const HINT = String.raw`(?<hint>` + chain([String.raw`If reserved (?:but unallocated )?memory is (?:>> allocated memory|large) try setting`, String.raw`[\w=:.]{1,60} to avoid fragmentation \.`, String.raw`See documentation for Memory Management`, String.raw`(?:and PYTORCH_CUDA_ALLOC_CONF|\( https?://[^)]{1,200} \))`]) + ')?';

// A message pasted from its second sentence on ("GPU 0 has a total capacity…", "(GPU 0; …") is
// still one: the head is optional where the next piece names the GPU.
const MODERN = String.raw`(?:${HEAD} \.)?` + chain([
  // Some builds print no index ("GPU  has a total capacity").
  String.raw`GPU (?<gpu>\d*) has a total capaci?ty of (?<total>${S})`,
  String.raw`of which (?<free>${S}) is free \.`,
  // The last sentence may be cut after its figure ("Process 1079173 has 6.04 GiB").
  String.raw`(?<procs>(?:${WHO} has ${S} memory in use \.)*(?:${WHO} has ${S}(?:memory(?:in use)?)?)?)`,
  String.raw`(?:(?<allowed>${S}) allowed ;)? Of the allocated memory (?<alloc>${S}) is allocated by PyTorch ,`,
  String.raw`(?:with (?<private>${S}) allocated in private pools \( e\.g\., CUDA Graphs \),)? and (?<unalloc>${S}) is reserved by PyTorch but unallocated \.?`,
  HINT,
]);
const LEGACY = String.raw`(?:${HEAD})?` + chain([
  String.raw`\( GPU (?<gpu>\d+) ; (?<total>${S}) total capacity ;`,
  String.raw`(?<alloc>${S}) already allocated ;`,
  String.raw`(?<free>${S}) free ;`,
  // The last words may be cut ("18.33 GiB reserved in total by"): the figure is whole, its meaning clear.
  String.raw`(?:(?<allowed>${S}) allowed ;)? (?<reserved>${S}) (?<kind>reserved(?: in(?: total(?: by(?: PyTorch)?)?)?)?|cached) \)?`,
  HINT,
]);
const ASYNC = chain([
  String.raw`Allocation on device (?<gpu>\d+) would exceed allowed memory \. \( out of memory \)`,
  String.raw`Currently allocated : (?<alloc>${S})`,
  String.raw`Requested : (?<req>${S})`,
  String.raw`Device limit : (?<total>${S})`,
  String.raw`Free \( according to CUDA \) : (?<free>${S})`,
  String.raw`(?:PyTorch limit \( set by user-supplied memory fraction \) : (?<allowed>${S}))?`,
]);

const re = (s: string) => new RegExp(flat(s), 'gi');

export const FORMATS: Format[] = [
  { re: re(String.raw`(?:CUDA out of memory \.)? Tried to allocate more than 1EB memory \.?`), read: () => ({ format: 'absurd', truncated: false, processes: [] }) },
  {
    re: re(MODERN),
    read(g) {
      const processes: OomProcess[] = [...(g.procs ?? '').matchAll(PROC)].map((p) => ({ pid: p.groups!.pid ? Number(p.groups!.pid) : null, usedBytes: sizeBytes(p.groups!.used!) }));
      return defined({ format: 'modern' as const, truncated: g.unalloc === undefined, processes, device: num(g, 'gpu'), triedBytes: size(g, 'tried'), totalBytes: size(g, 'total'), freeBytes: size(g, 'free'), allowedBytes: size(g, 'allowed'), allocatedBytes: size(g, 'alloc'), privatePoolBytes: size(g, 'private'), reservedUnallocatedBytes: size(g, 'unalloc') });
    },
  },
  {
    re: re(LEGACY),
    read(g) {
      const cached = g.kind !== undefined && /^cached$/i.test(g.kind);
      const format = cached ? 'cached' : g.hint ? 'reserved-hint' : 'reserved';
      const last = size(g, 'reserved');
      return defined({ format, truncated: last === undefined || !/^(?:reservedintotalbyPyTorch|cached)$/i.test(g.kind ?? ''), processes: [], device: num(g, 'gpu'), triedBytes: size(g, 'tried'), totalBytes: size(g, 'total'), freeBytes: size(g, 'free'), allowedBytes: size(g, 'allowed'), allocatedBytes: size(g, 'alloc'), ...(cached ? { reservedUnallocatedBytes: last } : { reservedBytes: last }) }) as Parsed;
    },
  },
  // Cut right after the request: the era cannot be told. Without "CUDA out of memory." before it,
  // "tried to allocate" is another allocator's words (the CPU's, MPS's).
  { re: re(String.raw`(?:CUDA|HIP) out of memory \. Tried to allocate (?<tried>${S})`), read: (g) => ({ format: 'fragment', truncated: true, processes: [], triedBytes: size(g, 'tried')! }) },
  {
    re: re(ASYNC),
    read: (g) => defined({ format: 'async' as const, truncated: g.free === undefined, processes: [], device: num(g, 'gpu'), allocatedBytes: size(g, 'alloc'), requestedBytes: size(g, 'req'), totalBytes: size(g, 'total'), freeBytes: size(g, 'free'), allowedBytes: size(g, 'allowed') }),
  },
  { re: re(String.raw`cuda runtime error \( 2 \) : out of memory`), read: () => ({ format: 'thc', truncated: false, processes: [] }) },
  // The runtime's own explanation names cudaErrorMemoryAllocation once more: one message, not two.
  { re: re(String.raw`(?:(?:CUDA|HIP) error : out of memory(?:[^]{0,40}?cudaErrorMemoryAllocation)?|cudaErrorMemoryAllocation|Cuda failure \d* 'out of memory')`), read: () => ({ format: 'cuda-error', truncated: false, processes: [] }) },
  { re: re(String.raw`CUBLAS_STATUS_ALLOC_FAILED`), read: () => ({ format: 'cublas', truncated: false, processes: [] }) },
];
