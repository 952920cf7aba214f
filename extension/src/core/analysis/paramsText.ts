import { formatBytes } from '../../shared/format';
import type { ParamKind } from '../run/paramsFile';
import { plain } from '../../shared/text';
import type { Credited, ParamsCredit } from './params';

const KIND: Record<ParamKind, string> = { parameter: 'parameter', gradient: 'gradient', optimizer_state: 'optimizer state' };
const PLURAL: Record<ParamKind, string> = { parameter: 'parameters', gradient: 'gradients', optimizer_state: 'optimizer state' };

const kindOf = (t: Credited) => (t.key !== null ? `${KIND[t.kind]} ${plain(t.key)}` : KIND[t.kind]);
const col = (n: number) => formatBytes(n).padStart(9);

/**
 * Plain-text lines for a terminal: the largest named tensors, then modules, e.g.
 * `   12.0 MiB  transformer.h.0.attn.c_attn.weight (gradient)`. Names come from the workload's
 * process: they are made inert (text.ts).
 */
export function renderParamsCredit(c: ParamsCredit, top = 10): string[] {
  const lines = [`By parameter, from the run's optimizer steps: ${formatBytes(c.creditedBytes)} of the ${formatBytes(c.liveBytes)} live`];
  const kinds = (Object.keys(KIND) as ParamKind[]).map((k) => `${PLURAL[k]} ${formatBytes(c.byKind[k].bytes)}`);
  lines.push(`  ${kinds.join(' · ')} · other memory ${formatBytes(c.liveBytes - c.creditedBytes)}`);
  for (const t of c.tensors.slice(0, top)) lines.push(`  ${col(t.bytes)}  ${plain(t.name)} (${kindOf(t)})`);
  const rest = c.tensors.slice(top);
  if (rest.length) lines.push(`  … ${rest.length} more (${formatBytes(rest.reduce((s, t) => s + t.bytes, 0))})`);
  if (c.modules.length) {
    lines.push('By module:');
    for (const m of c.modules.slice(0, top)) {
      const parts = (Object.keys(KIND) as ParamKind[])
        .filter((k) => m.byKind[k] > 0)
        .map((k) => `${PLURAL[k]} ${formatBytes(m.byKind[k])}`);
      lines.push(`  ${col(m.bytes)}  ${plain(m.module)} (${parts.join(', ')})`);
    }
    if (c.modules.length > top) lines.push(`  … ${c.modules.length - top} more modules`);
  }
  for (const note of c.notes) lines.push(`  note: ${note}`);
  return lines;
}
