import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import { attributeAt } from '../core/analysis/attributeAt';
import { formatBytes } from '../shared/format';
import { diffAttributions, signedBytes } from '../core/source/diff';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';
import { jsonText, plain, plainLines } from '../shared/text';

export const DIFF_USAGE = `usage: headroom diff BEFORE AFTER [--device N] [--top K] [--json]

  Compares two snapshots at their peaks: the peak figures, and the source lines whose memory at
  the peak changed (self bytes), largest change first. "Did my change reduce the peak, and where?"
  BEFORE and AFTER: snapshots or run folders. --top K lines (default 10); --json as JSON.
  Example: headroom diff before.pickle after.pickle`;

export async function diffCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { device: { value: true }, top: { value: true }, json: {} });
  if (p.positional.length !== 2) throw new UsageError(DIFF_USAGE);
  const top = intFlag(p, 'top') ?? 15;
  if (top < 0) throw new UsageError('--top must be 0 (all) or more');
  const side = async (path: string) => {
    const s = await loadForCli(path);
    const d = intFlag(p, 'device') ?? defaultDevice(s);
    if (d === undefined || !s.devices.includes(d))
      throw new UsageError(`${plain(path)} has no device ${d ?? ''} to compare (it has: ${s.devices.join(', ') || 'none'})`);
    const a = analyzeDevice(s, d);
    return { device: d, peak: a.replay.peak, attr: attributeAt(s, a, a.replay.peak) };
  };
  const [before, after] = [await side(p.positional[0]!), await side(p.positional[1]!)];
  // Two unrelated scripts diff as "everything removed, everything added": say so (on stderr, so --json stays JSON).
  const seen = new Set(before.attr.lines.map((l) => `${l.line}\u0000${l.file}`));
  if (before.attr.lines.length && after.attr.lines.length && !after.attr.lines.some((l) => seen.has(`${l.line}\u0000${l.file}`))) {
    io.err(
      `headroom: warning: ${plain(p.positional[0]!)} and ${plain(p.positional[1]!)} share no source lines: they look like different scripts; the per-line diff compares nothing\n`,
    );
  }
  const d = diffAttributions(before.attr, after.attr);
  const lines = top > 0 ? d.lines.slice(0, top) : d.lines;
  if (flag(p, 'json')) {
    io.out(
      jsonText({
        before: { device: before.device, peak_requested_bytes: before.peak.requestedBytes, trace_index: before.peak.index },
        after: { device: after.device, peak_requested_bytes: after.peak.requestedBytes, trace_index: after.peak.index },
        delta_bytes: after.peak.requestedBytes - before.peak.requestedBytes,
        lines: lines.map((l) => ({
          file: l.file,
          line: l.line,
          function: l.function,
          before_bytes: l.beforeBytes,
          after_bytes: l.afterBytes,
          delta_bytes: l.deltaBytes,
        })),
        lines_total: d.lines.length,
      }) + '\n',
    );
    return 0;
  }
  const out = [
    `Peak  ${formatBytes(before.peak.requestedBytes)} → ${formatBytes(after.peak.requestedBytes)}  (${signedBytes(after.peak.requestedBytes - before.peak.requestedBytes, formatBytes)})`,
    '',
    ...lines.map(
      (l) =>
        `  ${signedBytes(l.deltaBytes, formatBytes).padStart(11)}  ${formatBytes(l.beforeBytes).padStart(10)} → ${formatBytes(l.afterBytes).padEnd(10)}  ${plain(l.file)}:${l.line} (${plain(l.function)})`,
    ),
  ];
  if (!lines.length) out.push('  no line holds a different amount at the peak');
  else if (d.lines.length > lines.length) out.push(`  … ${d.lines.length - lines.length} more lines (--top 0 shows all)`);
  io.out(plainLines(out.join('\n')) + '\n');
  return 0;
}
