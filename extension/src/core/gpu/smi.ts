import type { GpuDevice, GpuProcess } from './types';

// nvidia-smi's CSV (--format=csv,noheader,nounits): memory in MiB, utilization in percent,
// "[N/A]" / "[Not Supported]" where the driver cannot say.
export const SMI_GPU_FIELDS = [
  'index',
  'name',
  'uuid',
  'memory.total',
  'memory.used',
  'memory.free',
  'memory.reserved',
  'utilization.gpu',
  'utilization.memory',
  'driver_version',
] as const;
/** Drivers before memory.reserved existed reject the whole query: this one is asked then. */
export const SMI_GPU_FIELDS_OLD = SMI_GPU_FIELDS.filter((f) => f !== 'memory.reserved');
export const SMI_APP_FIELDS = ['gpu_uuid', 'pid', 'used_memory'] as const;

export const smiArgs = (fields: readonly string[], query: 'gpu' | 'compute-apps'): string[] => [
  `--query-${query}=${fields.join(',')}`,
  '--format=csv,noheader,nounits',
];

const MiB = 2 ** 20;

export class SmiParseError extends Error {
  constructor(
    message: string,
    readonly line: string,
  ) {
    super(message);
    this.name = 'SmiParseError';
  }
}

/** One CSV row: commas separate fields; names may hold commas only inside quotes (nvidia-smi does not quote, so split on ", "). */
function cells(line: string, n: number): string[] {
  const parts = line.split(/,\s*/);
  // A device name with a comma: join the surplus back into the name (field 1).
  if (parts.length > n) parts.splice(1, parts.length - n + 1, parts.slice(1, parts.length - n + 2).join(', '));
  return parts.map((p) => p.trim());
}

const unknown = (v: string): boolean => /^\[.*\]$|^N\/A$/i.test(v);
function number(v: string, field: string, line: string): number | null {
  if (unknown(v)) return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new SmiParseError(`nvidia-smi gave "${v}" for ${field}`, line);
  return n;
}

/** Parses `--query-gpu` output (fields as in `fields`, in that order). */
export function parseSmiGpus(
  text: string,
  fields: readonly string[] = SMI_GPU_FIELDS,
): { devices: Omit<GpuDevice, 'processes'>[]; driver: string | null } {
  let driver: string | null = null;
  const devices: Omit<GpuDevice, 'processes'>[] = [];
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const c = cells(line, fields.length);
    if (c.length !== fields.length)
      throw new SmiParseError(`nvidia-smi gave ${c.length} fields where ${fields.length} were asked for`, line);
    const get = (f: string) => c[fields.indexOf(f)] ?? '[N/A]';
    const mib = (f: string) => {
      const v = fields.includes(f) ? number(get(f), f, line) : null;
      return v === null ? null : Math.round(v * MiB);
    };
    const index = number(get('index'), 'index', line);
    const total = mib('memory.total');
    const used = mib('memory.used');
    if (index === null || total === null || used === null) throw new SmiParseError('nvidia-smi gave no index or memory figures', line);
    devices.push({
      index,
      name: get('name'),
      uuid: get('uuid'),
      total,
      used,
      free: mib('memory.free') ?? total - used,
      reserved: mib('memory.reserved'),
      gpuUtil: fields.includes('utilization.gpu') ? number(get('utilization.gpu'), 'utilization.gpu', line) : null,
      memUtil: fields.includes('utilization.memory') ? number(get('utilization.memory'), 'utilization.memory', line) : null,
    });
    if (fields.includes('driver_version') && !unknown(get('driver_version'))) driver = get('driver_version');
  }
  return { devices, driver };
}

/** Parses `--query-compute-apps=gpu_uuid,pid,used_memory` output into processes per GPU UUID. */
export function parseSmiApps(text: string): Map<string, GpuProcess[]> {
  const out = new Map<string, GpuProcess[]>();
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    // "No running processes found" on some versions, instead of an empty answer.
    if (/^no running/i.test(line)) continue;
    const c = cells(line, SMI_APP_FIELDS.length);
    if (c.length !== SMI_APP_FIELDS.length) throw new SmiParseError(`nvidia-smi gave ${c.length} fields where 3 were asked for`, line);
    const pid = number(c[1]!, 'pid', line);
    if (pid === null) throw new SmiParseError('nvidia-smi gave no pid', line);
    const used = number(c[2]!, 'used_memory', line);
    const list = out.get(c[0]!) ?? [];
    list.push({ pid, used: used === null ? null : Math.round(used * MiB) });
    out.set(c[0]!, list);
  }
  return out;
}
