const MiB = 2 ** 20;
const roundUp = (x: number, m: number) => Math.ceil(x / m) * m;

/**
 * What PyTorch may take: a per-process cap (`set_per_process_memory_fraction`: the allocator
 * refuses a new segment when reserved + its size would pass it, and garbage collection acts), or
 * the device's memory less what others hold (a cudaMalloc or page map fails when it is not there).
 */
export interface Limit {
  bytes: number;
  cap: boolean;
}

export const NO_LIMIT: Limit = { bytes: Infinity, cap: false };

/** get_allocation_size: 2 MiB segments for the small pool, 20 MiB for 1–10 MiB, else the request in 2 MiB steps. */
export const segmentSize = (size: number) => (size <= MiB ? 2 * MiB : size < 10 * MiB ? 20 * MiB : roundUp(size, 2 * MiB));
