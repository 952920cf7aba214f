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
  for (const l of before.lines)
    map.set(key(l.file, l.line), {
      file: l.file,
      line: l.line,
      function: l.name,
      beforeBytes: l.selfBytes,
      afterBytes: 0,
      deltaBytes: -l.selfBytes,
    });
  for (const l of after.lines) {
    const d = map.get(key(l.file, l.line)) ?? {
      file: l.file,
      line: l.line,
      function: l.name,
      beforeBytes: 0,
      afterBytes: 0,
      deltaBytes: 0,
    };
    d.afterBytes = l.selfBytes;
    d.deltaBytes = d.afterBytes - d.beforeBytes;
    map.set(key(l.file, l.line), d);
  }
  return {
    beforeTotal: before.totalBytes,
    afterTotal: after.totalBytes,
    lines: [...map.values()]
      .filter((d) => d.deltaBytes !== 0)
      .sort((a, b) => Math.abs(b.deltaBytes) - Math.abs(a.deltaBytes) || a.file.localeCompare(b.file) || a.line - b.line),
  };
}

/** "+512 MiB" / "−1.20 GiB": signed, with a true minus sign. */
export function signedBytes(n: number, format: (b: number) => string): string {
  return n >= 0 ? `+${format(n)}` : `−${format(-n)}`;
}

/** A line's self bytes on one side. */
export interface LineBytes {
  file: string;
  line: number;
  name: string;
  bytes: number;
}

/** A line's bytes on each side (null: that side has none), and the spread (max − min). */
export interface LineSpread {
  file: string;
  line: number;
  name: string;
  bytes: (number | null)[];
  spread: number;
}

/** A module's self bytes on each side (null: that side recorded no scopes), and the spread. */
export interface ModuleSpread {
  path: string;
  bytes: (number | null)[];
  spread: number;
}

/**
 * The lines whose self bytes differ most between N sides (a distributed run's ranks at their peaks,
 * as Mosaic reports imbalance; two snapshots): `perSide[i]` undefined when side i has none.
 */
export function differingLines(perSide: readonly (LineBytes[] | undefined)[], top: number): LineSpread[] {
  return differing(
    perSide,
    (l) => `${l.file}:${l.line}`,
    (l, bytes) => ({ file: l.file, line: l.line, name: l.name, bytes, spread: 0 }),
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line,
    top,
  );
}

/** The same for nn.Module paths (runs recorded with module scopes). */
export function differingModules(perSide: readonly ({ path: string; bytes: number }[] | undefined)[], top: number): ModuleSpread[] {
  return differing(
    perSide,
    (m) => m.path,
    (m, bytes) => ({ path: m.path, bytes, spread: 0 }),
    (a, b) => a.path.localeCompare(b.path),
    top,
  );
}

/** Rows keyed by `key`, each rank's bytes summed, those that differ between ranks, widest spread first (then `tie`). */
function differing<I extends { bytes: number }, R extends { bytes: (number | null)[]; spread: number }>(
  perSide: readonly (I[] | undefined)[],
  key: (x: I) => string,
  make: (x: I, bytes: (number | null)[]) => R,
  tie: (a: R, b: R) => number,
  top: number,
): R[] {
  const byKey = new Map<string, R>();
  perSide.forEach((xs, i) => {
    for (const x of xs ?? []) {
      const k = key(x);
      let row = byKey.get(k);
      if (!row)
        byKey.set(
          k,
          (row = make(
            x,
            perSide.map((r) => (r ? 0 : null)),
          )),
        );
      row.bytes[i] = (row.bytes[i] ?? 0) + x.bytes;
    }
  });
  const rows = [...byKey.values()];
  for (const r of rows) {
    const known = r.bytes.filter((b): b is number => b !== null);
    r.spread = known.length > 1 ? known.reduce((m, x) => Math.max(m, x), -Infinity) - known.reduce((m, x) => Math.min(m, x), Infinity) : 0;
  }
  return rows
    .filter((r) => r.spread > 0)
    .sort((a, b) => b.spread - a.spread || tie(a, b))
    .slice(0, top);
}
