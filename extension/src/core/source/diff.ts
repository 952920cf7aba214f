import type { Attribution } from '../analysis/attribution';

export interface LineDelta {
  file: string;
  line: number;
  function: string;
  beforeBytes: number;
  afterBytes: number;
  /** after − before (self bytes). */
  deltaBytes: number;
}

export interface AttributionDiff {
  beforeTotal: number;
  afterTotal: number;
  /** Lines whose self bytes changed, largest change first. */
  lines: LineDelta[];
}

/** Per-line difference of self bytes between two instants (usually two peaks). */
export function diffAttributions(before: Attribution, after: Attribution): AttributionDiff {
  const key = (f: string, l: number) => `${l}\u0000${f}`;
  const map = new Map<string, LineDelta>();
  for (const l of before.lines) map.set(key(l.file, l.line), { file: l.file, line: l.line, function: l.name, beforeBytes: l.selfBytes, afterBytes: 0, deltaBytes: -l.selfBytes });
  for (const l of after.lines) {
    const d = map.get(key(l.file, l.line)) ?? { file: l.file, line: l.line, function: l.name, beforeBytes: 0, afterBytes: 0, deltaBytes: 0 };
    d.afterBytes = l.selfBytes;
    d.deltaBytes = d.afterBytes - d.beforeBytes;
    map.set(key(l.file, l.line), d);
  }
  return {
    beforeTotal: before.totalBytes,
    afterTotal: after.totalBytes,
    lines: [...map.values()].filter((d) => d.deltaBytes !== 0).sort((a, b) => Math.abs(b.deltaBytes) - Math.abs(a.deltaBytes) || a.file.localeCompare(b.file) || a.line - b.line),
  };
}

/** "+512 MiB" / "−1.20 GiB": signed, with a true minus sign. */
export function signedBytes(n: number, format: (b: number) => string): string {
  return n >= 0 ? `+${format(n)}` : `−${format(-n)}`;
}
