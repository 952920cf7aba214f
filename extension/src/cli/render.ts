import { BUCKET_LABELS } from '../core/analysis/attribution';
import { KIND_NOTES, mainKind } from '../core/kinds/kindLabels';
import type { KindLabel } from '../core/kinds/kindLabels';
import { formatBytes } from '../shared/format';
import type { AnalyzeReport } from '../core/report';
import { lineKey } from '../core/analysis/callNode';
import { renderBreakdown } from './breakdown';
import type { LineBreakdown } from '../core/analysis/breakdown';
import { plain } from '../shared/text';

/** The kind column: the kind holding most of a line's bytes, "+" when others hold over a tenth. */
const KIND_WIDTH = 19;
function kindOf(kinds: readonly { kind: KindLabel; bytes: number }[]): string {
  const main = mainKind(kinds);
  return main ? `${main.kind}${main.mixed ? '+' : ''}` : '';
}

const pct = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '–');

/** Date's range is ±8.64e15 ms; a crafted time_us beyond it is shown as the number it is. */
function time(us: number | null): string {
  if (us === null) return '';
  const d = new Date(us / 1000);
  if (Number.isNaN(d.getTime())) return ` at time_us ${Number.isFinite(us) ? us : '?'} (not a date)`;
  return ` at ${d.toISOString().replace('T', ' ').replace('Z', ' UTC')}`;
}

/**
 * The human `headroom analyze` report: short, readable, every figure labelled. Every string from
 * the snapshot (and the path) goes through plain(): no control character reaches the terminal.
 * `top` lines holding memory are listed (0: all), from a report built with every line.
 */
export function renderReport(r: AnalyzeReport, path: string, top = 0, beneath?: ReadonlyMap<string, LineBreakdown>): string {
  const out: string[] = [];
  const devs = r.devices.length > 1 ? ` (devices: ${r.devices.join(', ')})` : '';
  out.push(`${plain(path)} — device ${r.device}${devs}, ${r.events} trace events`);
  out.push('');
  out.push(
    `Peak       ${formatBytes(r.peak.requested_bytes)} requested (≈${formatBytes(r.peak.allocated_bytes)} allocated, estimate), event #${r.peak.trace_index}${time(r.peak.time_us)}`,
  );
  out.push(`End        ${formatBytes(r.end.requested_bytes)} requested`);
  out.push(`Reserved   peak ${formatBytes(r.reserved_bytes.peak)}, end ${formatBytes(r.reserved_bytes.end)}`);
  if (r.start.blocks > 0)
    out.push(`Before     ${formatBytes(r.start.requested_bytes)} in ${r.start.blocks} blocks were live before the first recorded event`);
  out.push('');
  const total = r.at.requested_bytes;
  const what = r.at.kind === 'index' ? `event #${r.at.trace_index}` : `the ${r.at.kind}`;
  out.push(`Live at ${what}: ${formatBytes(total)}`);
  // Lines that only hold memory through the calls they make are in --json; here, the holders. The
  // report must list every line (top 0) so that the footer counts the holders really left out.
  const all = r.lines.filter((l) => l.self_bytes > 0);
  const holders = top > 0 ? all.slice(0, top) : all;
  if (holders.length) {
    out.push(
      `  ${'self'.padStart(10)} ${'share'.padStart(6)} ${'inclusive'.padStart(10)} ${'blocks'.padStart(6)}  ${'kind'.padEnd(KIND_WIDTH)}  line`,
    );
    for (const l of holders) {
      out.push(
        `  ${formatBytes(l.self_bytes).padStart(10)} ${pct(l.self_bytes, total).padStart(6)} ${formatBytes(l.inclusive_bytes).padStart(10)} ${String(l.blocks).padStart(6)}  ${kindOf(l.kinds).padEnd(KIND_WIDTH)}  ${plain(l.file)}:${l.line} (${plain(l.function)})`,
      );
      const b = beneath?.get(lineKey(l.file, l.line));
      if (b) out.push(...renderBreakdown(b, 40));
    }
    const left = all.length - holders.length;
    if (left > 0)
      out.push(`  … ${left} more ${left === 1 ? 'line' : 'lines'} (--top 0 shows all; --json adds the callers' inclusive figures)`);
  }
  for (const b of r.buckets) {
    out.push(
      `  ${formatBytes(b.bytes).padStart(10)} ${pct(b.bytes, total).padStart(6)} ${''.padStart(10)} ${String(b.blocks).padStart(6)}  ${kindOf(b.kinds).padEnd(KIND_WIDTH)}  [${BUCKET_LABELS[b.kind]}]`,
    );
    for (const s of b.sites?.slice(0, 3) ?? [])
      out.push(`${''.padStart(38)}  via backward() at ${plain(s.file)}:${s.line}: ${formatBytes(s.bytes)}`);
    for (const n of b.nodes?.slice(0, 3) ?? []) out.push(`${''.padStart(38)}  node ${plain(n.name)}: ${formatBytes(n.bytes)}`);
  }
  if (r.kinds.length) {
    out.push('');
    out.push(`By kind    ${r.kinds.map((k) => `${k.kind} ${formatBytes(k.bytes)}`).join(', ')}`);
    for (const k of r.kinds) if (KIND_NOTES[k.kind]) out.push(`  ${k.kind}: ${KIND_NOTES[k.kind]}`);
  }
  const f = r.fragmentation;
  out.push('');
  out.push(
    `Fragmentation (final state): reserved ${formatBytes(f.reserved_bytes)}, allocated ${formatBytes(f.allocated_block_bytes)}, reserved but unallocated ${formatBytes(f.reserved_unallocated_bytes)}, non-releasable (inactive split) ${formatBytes(f.inactive_split_bytes)}`,
  );
  for (const p of f.pools) {
    const id = p.pool_id[0] || p.pool_id[1] ? ` pool (${p.pool_id.join(',')})` : '';
    out.push(`  ${p.pool}${id}: ${formatBytes(p.free_bytes)} free, largest free block ${formatBytes(p.largest_free_bytes)}`);
  }
  if (r.ooms.length) {
    out.push('');
    for (const o of r.ooms) {
      const where = o.file ? ` from ${plain(o.file)}:${o.line}` : '';
      out.push(
        `OOM at event #${o.trace_index}${time(o.time_us)}: ${formatBytes(o.requested_bytes)} requested${where}; CUDA reported ${formatBytes(o.device_free_bytes)} free`,
      );
    }
  }
  const notes = [...r.warnings.map((w) => `warning: ${w}`), ...r.notes.slice(1)];
  if (notes.length) out.push('', ...notes.map((n) => `note: ${plain(n)}`));
  return out.join('\n') + '\n';
}
