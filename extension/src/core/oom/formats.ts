import type { OomMessage, OomProcess } from './types';
import { ASYNC, flat, LEGACY, MODERN, PROC, S } from './patterns';

type Parsed = Omit<OomMessage, 'offset' | 'end' | 'text'>;
export interface Format {
  re: RegExp;
  read(g: Record<string, string | undefined>): Parsed | null;
}

const UNITS: Record<string, number> = { bytes: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 };

/** "20.00MiB" or "20.00 MiB" → bytes. Two decimals: within ±0.5 % of the real figure. */
export function sizeBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB)$/i.exec(s.trim());
  if (!m) throw new RangeError(`not a size: ${s}`);
  return Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
}

const size = (g: Record<string, string | undefined>, k: string) => (g[k] === undefined ? undefined : sizeBytes(g[k]!));
const num = (g: Record<string, string | undefined>, k: string) => (g[k] === undefined || g[k] === '' ? undefined : Number(g[k]));
/** Only the figures present: an absent one is not zero. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const re = (s: string) => new RegExp(flat(s), 'gi');

export const FORMATS: Format[] = [
  {
    re: re(String.raw`(?:CUDA out of memory \.)? Tried to allocate more than 1EB memory \.?`),
    read: () => ({ format: 'absurd', truncated: false, processes: [] }),
  },
  {
    re: re(MODERN),
    read(g) {
      const processes: OomProcess[] = [...(g.procs ?? '').matchAll(PROC)].map((p) => ({
        pid: p.groups!.pid ? Number(p.groups!.pid) : null,
        usedBytes: sizeBytes(p.groups!.used!),
      }));
      return defined({
        format: 'modern' as const,
        truncated: g.unalloc === undefined,
        processes,
        device: num(g, 'gpu'),
        triedBytes: size(g, 'tried'),
        totalBytes: size(g, 'total'),
        freeBytes: size(g, 'free'),
        allowedBytes: size(g, 'allowed'),
        allocatedBytes: size(g, 'alloc'),
        privatePoolBytes: size(g, 'private'),
        reservedUnallocatedBytes: size(g, 'unalloc'),
      });
    },
  },
  {
    re: re(LEGACY),
    read(g) {
      const cached = g.kind !== undefined && /^cached$/i.test(g.kind);
      const format = cached ? 'cached' : g.hint ? 'reserved-hint' : 'reserved';
      const last = size(g, 'reserved');
      return defined({
        format,
        truncated: last === undefined || !/^(?:reservedintotalbyPyTorch|cached)$/i.test(g.kind ?? ''),
        processes: [],
        device: num(g, 'gpu'),
        triedBytes: size(g, 'tried'),
        totalBytes: size(g, 'total'),
        freeBytes: size(g, 'free'),
        allowedBytes: size(g, 'allowed'),
        allocatedBytes: size(g, 'alloc'),
        ...(cached ? { reservedUnallocatedBytes: last } : { reservedBytes: last }),
      }) as Parsed;
    },
  },
  // Cut right after the request: the era cannot be told. Without "CUDA out of memory." before it,
  // "tried to allocate" is another allocator's words (the CPU's, MPS's).
  {
    re: re(String.raw`(?:CUDA|HIP) out of memory \. Tried to allocate (?<tried>${S})`),
    read: (g) => ({ format: 'fragment', truncated: true, processes: [], triedBytes: size(g, 'tried')! }),
  },
  {
    re: re(ASYNC),
    read: (g) =>
      defined({
        format: 'async' as const,
        truncated: g.free === undefined,
        processes: [],
        device: num(g, 'gpu'),
        allocatedBytes: size(g, 'alloc'),
        requestedBytes: size(g, 'req'),
        totalBytes: size(g, 'total'),
        freeBytes: size(g, 'free'),
        allowedBytes: size(g, 'allowed'),
      }),
  },
  { re: re(String.raw`cuda runtime error \( 2 \) : out of memory`), read: () => ({ format: 'thc', truncated: false, processes: [] }) },
  // The runtime's own explanation names cudaErrorMemoryAllocation once more: one message, not two.
  {
    re: re(
      String.raw`(?:(?:CUDA|HIP) error : out of memory(?:[^]{0,40}?cudaErrorMemoryAllocation)?|cudaErrorMemoryAllocation|Cuda failure \d* 'out of memory')`,
    ),
    read: () => ({ format: 'cuda-error', truncated: false, processes: [] }),
  },
  { re: re(String.raw`CUBLAS_STATUS_ALLOC_FAILED`), read: () => ({ format: 'cublas', truncated: false, processes: [] }) },
];
