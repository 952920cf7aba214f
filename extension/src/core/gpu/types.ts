/** One GPU as the driver sees it: all memory on the device, whoever holds it. Bytes. */
export interface GpuDevice {
  index: number;
  name: string;
  uuid: string;
  total: number;
  used: number;
  free: number;
  /** The driver's own share (NVML memory v2); null where the source cannot say. */
  reserved: number | null;
  /** Percent; null when unknown. */
  gpuUtil: number | null;
  memUtil: number | null;
  processes: GpuProcess[];
}

export interface GpuProcess {
  pid: number;
  /** Null when the driver does not say (containers, some MIG setups). */
  used: number | null;
}

/** Where device figures come from, best first: the bundled addon, nvidia-smi, or nothing. */
export type GpuSource = 'nvml' | 'nvidia-smi' | 'none';

export interface GpuSnapshot {
  source: Exclude<GpuSource, 'none'>;
  driver: string | null;
  devices: GpuDevice[];
  /** When it was read (ms since the epoch). */
  at: number;
}

export type GpuResult = { ok: true; snapshot: GpuSnapshot } | { ok: false; source: GpuSource; reason: string };

/** Reads the devices; every failure is a result, never a throw (a dead driver must not break the editor). */
export interface GpuProbe {
  readonly source: GpuSource;
  /** Why the better sources were not used (for the log and the tooltip). */
  readonly fallbackReasons: readonly string[];
  read(): Promise<GpuResult>;
}
