import { SMI_APP_FIELDS, SMI_GPU_FIELDS, SMI_GPU_FIELDS_OLD, parseSmiApps, parseSmiGpus, smiArgs } from './smi';
import type { GpuDevice, GpuProbe, GpuProcess, GpuResult, GpuSource } from './types';

/** What the native addon answers (native/src/addon.cc): typed results, never a throw. */
type Res<T> = { ok: true; value: T } | { ok: false; code: number; message: string };
export interface NvmlAddon {
  available(): { available: boolean; reason?: string };
  devices(): Res<Omit<GpuDevice, 'processes'>[]>;
  processes(index: number): Res<GpuProcess[]>;
  driverVersion(): Res<string>;
}

/** Runs nvidia-smi with these arguments: its stdout, or why it could not run. */
export type SmiRunner = (args: string[]) => Promise<{ ok: true; stdout: string } | { ok: false; reason: string }>;

class NvmlProbe implements GpuProbe {
  readonly source = 'nvml';
  constructor(
    private readonly addon: NvmlAddon,
    readonly fallbackReasons: readonly string[],
  ) {}
  async read(): Promise<GpuResult> {
    const ds = this.addon.devices();
    if (!ds.ok) return { ok: false, source: 'nvml', reason: `NVML: ${ds.message}` };
    const devices: GpuDevice[] = [];
    for (const d of ds.value) {
      const ps = this.addon.processes(d.index);
      // A device whose process list is denied still has its memory figures.
      devices.push({ ...d, processes: ps.ok ? ps.value : [] });
    }
    const v = this.addon.driverVersion();
    return { ok: true, snapshot: { source: 'nvml', driver: v.ok ? v.value : null, devices, at: Date.now() } };
  }
}

class SmiProbe implements GpuProbe {
  readonly source = 'nvidia-smi';
  private fields: readonly string[] = SMI_GPU_FIELDS;
  constructor(
    private readonly run: SmiRunner,
    readonly fallbackReasons: readonly string[],
  ) {}
  async read(): Promise<GpuResult> {
    let gpus = await this.run(smiArgs(this.fields, 'gpu'));
    // Drivers from before memory.reserved reject the whole query: ask without it from then on.
    if (!gpus.ok && this.fields === SMI_GPU_FIELDS && /memory\.reserved|not a valid field/i.test(gpus.reason)) {
      this.fields = SMI_GPU_FIELDS_OLD;
      gpus = await this.run(smiArgs(this.fields, 'gpu'));
    }
    if (!gpus.ok) return { ok: false, source: 'nvidia-smi', reason: gpus.reason };
    const apps = await this.run(smiArgs(SMI_APP_FIELDS, 'compute-apps'));
    try {
      const { devices, driver } = parseSmiGpus(gpus.stdout, this.fields);
      const procs = apps.ok ? parseSmiApps(apps.stdout) : new Map<string, GpuProcess[]>();
      return {
        ok: true,
        snapshot: {
          source: 'nvidia-smi',
          driver,
          devices: devices.map((d) => ({ ...d, processes: procs.get(d.uuid) ?? [] })),
          at: Date.now(),
        },
      };
    } catch (e) {
      return { ok: false, source: 'nvidia-smi', reason: e instanceof Error ? e.message : String(e) };
    }
  }
}

class NoProbe implements GpuProbe {
  readonly source = 'none';
  constructor(readonly fallbackReasons: readonly string[]) {}
  async read(): Promise<GpuResult> {
    return { ok: false, source: 'none', reason: `no GPU information: ${this.fallbackReasons.join('; ')}` };
  }
}

/**
 * The best source that works here, in order: the bundled addon (NVML), nvidia-smi, nothing. Each
 * step that fails leaves its reason, so the log and the tooltip can say why figures are missing.
 */
export async function chooseProbe(loadAddon: () => NvmlAddon | Error, runSmi: SmiRunner): Promise<GpuProbe> {
  const reasons: string[] = [];
  const addon = loadAddon();
  if (addon instanceof Error) reasons.push(`the native addon did not load (${addon.message})`);
  else {
    const a = addon.available();
    if (a.available) return new NvmlProbe(addon, reasons);
    reasons.push(`NVML is not available (${a.reason ?? 'no reason given'})`);
  }
  const smi = await runSmi(['--query-gpu=count', '--format=csv,noheader']);
  if (smi.ok) return new SmiProbe(runSmi, reasons);
  reasons.push(`nvidia-smi did not run (${smi.reason})`);
  return new NoProbe(reasons);
}

/** Where the figures a tooltip shows came from, in words. */
export const sourceLabel = (s: GpuSource): string => (s === 'nvml' ? 'NVML (bundled addon)' : s === 'nvidia-smi' ? 'nvidia-smi' : 'none');

/** At most one read in flight (a read may start nvidia-smi): reads asked meanwhile share the next one. */
export function coalesced(probe: GpuProbe): GpuProbe {
  let running: Promise<GpuResult> | undefined;
  let next: Promise<GpuResult> | undefined;
  const start = (): Promise<GpuResult> => {
    const p = new Promise<GpuResult>((ok) => ok(probe.read())).finally(() => {
      if (running === p) running = undefined;
    });
    return (running = p);
  };
  const none = () => undefined;
  // The next read starts when the running one ends, so it is taken after the OOMs that wait for it.
  const read = () =>
    next ??
    (running
      ? (next = running.then(none, none).then(() => {
          next = undefined;
          return start();
        }))
      : start());
  return { source: probe.source, fallbackReasons: probe.fallbackReasons, read };
}
