import { BUCKET_LABELS } from '../analysis/attribution';
import { byModule, hasModuleScopes } from '../analysis/modules';
import { formatBytes } from '../../shared/format';
import { KIND_NOTES, kindsClause } from '../kinds/kindLabels';
import { buildReport } from '../report';
import { windowNote } from '../run/recordingMode';
import { DEVICE_PROP, int, openSource, PAGE_PROP, PATH_PROP, str } from './input';
import { paged } from './page';
import type { ToolDef } from './types';

const TOP = 10;

/** Peak, reserved, fragmentation, and the lines and modules holding memory at the peak (or an event). */
export const summaryTool: ToolDef = {
  name: 'headroom_summary',
  title: 'Memory summary of a PyTorch run',
  description:
    'Summarizes a PyTorch CUDA memory snapshot or Headroom run folder: the peak (exact requested bytes), reserved memory, fragmentation, and the source lines and nn.Modules holding the most memory at the peak (or at a trace event). Lines are file:line.',
  inputSchema: {
    type: 'object',
    properties: {
      path: PATH_PROP,
      device: DEVICE_PROP,
      at_event: { type: 'integer', description: 'A trace event index instead of the peak', minimum: 0 },
      page: PAGE_PROP,
    },
    required: ['path'],
    additionalProperties: false,
  },
  paths: ['path'],
  async run(args, files) {
    const o = await openSource(str(args, 'path')!, int(args, 'device', 0), files);
    const at = int(args, 'at_event', 0);
    const { report: r } = buildReport(o.snapshot, o.analysis, at ?? 'peak', TOP);
    const f = r.fragmentation;
    const out = [
      `${o.file}, device ${r.device} (${r.events} trace events)`,
      `peak: ${formatBytes(r.peak.requested_bytes)} requested (${r.peak.requested_bytes} B) at event #${r.peak.trace_index}; reserved peak ${formatBytes(r.reserved_bytes.peak)}; at the end ${formatBytes(r.end.requested_bytes)}`,
      `fragmentation at the end: ${formatBytes(f.reserved_unallocated_bytes)} reserved but unallocated in ${f.segments} segments; ${formatBytes(f.inactive_split_bytes)} in ${f.inactive_split_blocks} inactive split blocks`,
      `live at ${r.at.kind === 'peak' ? 'the peak' : `event #${r.at.trace_index}`} (${formatBytes(r.at.requested_bytes)}), by source line (self bytes: the innermost line of the user's code):`,
      `by kind: ${kindsClause(r.kinds, formatBytes)}`,
      ...r.kinds.filter((k) => KIND_NOTES[k.kind]).map((k) => `  ${k.kind}: ${KIND_NOTES[k.kind]!}`),
      ...r.lines.map(
        (l) =>
          `  ${l.file}:${l.line} ${l.function}: ${formatBytes(l.self_bytes)} self (${kindsClause(l.kinds, formatBytes)}), ${formatBytes(l.inclusive_bytes)} inclusive, ${l.blocks} blocks`,
      ),
      ...(r.lines_total > r.lines.length ? [`  … ${r.lines_total - r.lines.length} more lines`] : []),
      ...r.buckets.map(
        (b) =>
          `  ${BUCKET_LABELS[b.kind]}: ${formatBytes(b.bytes)} in ${b.blocks} blocks (${kindsClause(b.kinds, formatBytes)})${b.sites?.[0] ? ` (via backward() at ${b.sites[0].file}:${b.sites[0].line})` : ''}`,
      ),
    ];
    if (hasModuleScopes(o.snapshot)) {
      const m = byModule(o.snapshot, o.analysis, r.at.trace_index);
      const top = [...m.modules]
        .filter((x) => x.selfBytes > 0)
        .sort((x, y) => y.selfBytes - x.selfBytes)
        .slice(0, TOP);
      out.push(
        `by module (the nn.Module whose forward or backward allocated it): ${formatBytes(m.scopedBytes)} of ${formatBytes(m.totalBytes)} in modules`,
      );
      for (const x of top)
        out.push(
          `  ${x.path}: ${formatBytes(x.selfBytes)} (forward ${formatBytes(x.forwardBytes)}, backward ${formatBytes(x.backwardBytes)})${x.where ? ` mostly at ${x.where.file}:${x.where.line}` : ''}`,
        );
    }
    const note = o.process && windowNote(o.process, r.device, r.peak.requested_bytes);
    if (note) out.push(...note.split('\n'));
    for (const w of r.warnings.slice(0, 3)) out.push(`warning: ${w}`);
    return paged(out, int(args, 'page', 1));
  },
};
