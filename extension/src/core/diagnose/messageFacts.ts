import type { OomMessage } from '../oom/types';

/**
 * What an OOM message's figures say once read together (format doc §14): PyTorch's reserve in
 * every format, who "Process N" is, and the device memory outside PyTorch. Each is undefined when
 * the message does not print what it needs.
 */
export interface MessageFacts {
  /** The request ("Tried to allocate", cudaMallocAsync's "Requested"). */
  request?: number;
  total?: number;
  free?: number;
  allocated?: number;
  /** PyTorch's reserve: printed (1.5–2.0), or allocated + slack (≤1.4 "cached", 2.1+). */
  reserved?: number;
  /** Reserved but unallocated: the slack fragmentation leaves. */
  slack?: number;
  /** A per-process limit below the device's total. */
  cap?: number;
  /** This process's NVML figure, and its pid when it was listed as "Process N" (a container). */
  selfUsed?: number;
  selfPid?: number;
  /** Other processes on the device, and the sum of their figures. */
  others: { pid: number; used: number }[];
  othersBytes: number;
  /** total − free − reserved: this process's context and libraries, plus other processes. */
  outside?: number;
  /** cudaMallocAsync: total − free − allocated, the pool's freed memory and the outside together. */
  unaccounted?: number;
}

export function messageFacts(m: OomMessage): MessageFacts {
  const request = m.triedBytes ?? m.requestedBytes;
  const allocated = m.allocatedBytes;
  // cudaMallocAsync prints no reserve: what its pool keeps of freed memory is not told apart from
  // the memory outside PyTorch.
  const slack =
    m.reservedUnallocatedBytes ??
    (m.reservedBytes !== undefined && allocated !== undefined ? Math.max(0, m.reservedBytes - allocated) : undefined);
  const reserved = m.reservedBytes ?? (allocated !== undefined && slack !== undefined ? allocated + slack : undefined);
  const total = m.totalBytes;
  const cap = m.allowedBytes !== undefined && total !== undefined && m.allowedBytes < total ? m.allowedBytes : undefined;
  let selfUsed = m.processes.find((p) => p.pid === null)?.usedBytes;
  let selfPid: number | undefined;
  const listed = m.processes.filter((p): p is { pid: number; usedBytes: number } => p.pid !== null);
  if (selfUsed === undefined && listed.length && reserved !== undefined) {
    // NVML names this process "this process" unless a container hides its host pid: then it is one
    // of the listed processes, the smallest that holds at least PyTorch's reserve, and not another
    // program (it may hold much beside PyTorch: NCCL, CUDA graphs, other libraries).
    const fits = listed.filter((p) => p.usedBytes >= reserved * 0.99);
    const self = fits.sort((a, b) => a.usedBytes - b.usedBytes)[0];
    if (self) {
      selfUsed = self.usedBytes;
      selfPid = self.pid;
    }
  }
  const others = listed.filter((p) => p.pid !== selfPid).map((p) => ({ pid: p.pid, used: p.usedBytes }));
  const outside =
    total !== undefined && m.freeBytes !== undefined && reserved !== undefined ? Math.max(0, total - m.freeBytes - reserved) : undefined;
  return {
    ...(request !== undefined ? { request } : {}),
    ...(total !== undefined ? { total } : {}),
    ...(m.freeBytes !== undefined ? { free: m.freeBytes } : {}),
    ...(allocated !== undefined ? { allocated } : {}),
    ...(reserved !== undefined ? { reserved } : {}),
    ...(slack !== undefined ? { slack } : {}),
    ...(cap !== undefined ? { cap } : {}),
    ...(selfUsed !== undefined ? { selfUsed } : {}),
    ...(selfPid !== undefined ? { selfPid } : {}),
    others,
    othersBytes: others.reduce((x, p) => x + p.used, 0),
    ...(outside !== undefined ? { outside } : {}),
    ...(m.format === 'async' && total !== undefined && m.freeBytes !== undefined && allocated !== undefined
      ? { unaccounted: Math.max(0, total - m.freeBytes - allocated) }
      : {}),
  };
}
