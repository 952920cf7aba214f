import type { GpuDevice, GpuSnapshot } from './types';

export interface ProcessMemory {
  device: GpuDevice;
  /** All device memory the process holds: its CUDA context, the allocator's segments, libraries' workspaces. */
  used: number;
  /** used − the allocator's reserved bytes: the CUDA context, cuBLAS/cuDNN/NCCL buffers, other frameworks. */
  nonPyTorch: number;
}

/**
 * What a process holds on its GPU beside PyTorch's allocator. `device` (PyTorch's index) picks the
 * GPU when the process is on several; it only matches the driver's numbering without
 * CUDA_VISIBLE_DEVICES, so a process on one GPU is found by its pid alone. Undefined when the driver
 * does not list the pid (another pid namespace, a container) or does not say how much it holds.
 */
export function processMemory(snapshot: GpuSnapshot, pid: number, reserved: number, device?: number): ProcessMemory | undefined {
  const on = snapshot.devices.filter((d) => d.processes.some((p) => p.pid === pid && p.used !== null));
  const d = on.length === 1 ? on[0] : on.find((x) => x.index === device);
  const used = d?.processes.find((p) => p.pid === pid)?.used;
  if (!d || used === null || used === undefined) return undefined;
  return { device: d, used, nonPyTorch: used - reserved };
}
