import { formatBytes } from '../../shared/format';
import { sourceLabel } from './probe';
import type { GpuResult } from './types';

const pct = (n: number | null): string => (n === null ? '–' : `${n}%`);
const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/**
 * Every GPU and every process on it, as text (a small nvidia-smi for an editor tab). `names` maps
 * pids to command lines where the host can read them.
 */
export function renderGpus(r: GpuResult, names: ReadonlyMap<number, string> = new Map(), when = new Date()): string {
  const head = `Headroom — GPUs, ${when.toLocaleTimeString()} (refreshes every second while open)`;
  if (!r.ok) return `${head}\n\nNo GPU information (${sourceLabel(r.source)}): ${r.reason}\n`;
  const s = r.snapshot;
  const out = [head, `Source: ${sourceLabel(s.source)}${s.driver ? `, driver ${s.driver}` : ''}`, ''];
  for (const d of s.devices) {
    const reserved = d.reserved === null ? '' : `, ${formatBytes(d.reserved)} reserved by the driver`;
    out.push(`GPU ${d.index}  ${d.name}  ${d.uuid}`);
    out.push(`  memory  ${formatBytes(d.used)} used of ${formatBytes(d.total)} (${formatBytes(d.free)} free${reserved})`);
    out.push(`  busy    ${pct(d.gpuUtil)} compute, ${pct(d.memUtil)} memory bandwidth`);
    if (!d.processes.length) out.push('  no compute processes');
    else {
      out.push(`  ${pad('pid', 9)}${pad('memory', 13)}command`);
      for (const p of [...d.processes].sort((a, b) => (b.used ?? 0) - (a.used ?? 0)))
        out.push(`  ${pad(String(p.pid), 9)}${pad(p.used === null ? 'unknown' : formatBytes(p.used), 13)}${names.get(p.pid) ?? ''}`);
    }
    out.push('');
  }
  return out.join('\n');
}
