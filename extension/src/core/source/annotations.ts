import type { Attribution } from '../analysis/attribution';
import { kindEntries } from '../kinds/kindLabels';
import type { KindLabel } from '../kinds/kindLabels';

/** One decorated source line. Lines are 1-based, as in frames. */
export interface LineAnnotation {
  /** The local file (after path mapping). */
  file: string;
  line: number;
  function: string;
  selfBytes: number;
  inclusiveBytes: number;
  blocks: number;
  /** Largest blocks held through this line (self), largest first. */
  largest: number[];
  /** Self bytes as a share of everything live at the instant. */
  share: number;
  /** 0 (cool) … 4 (hot), for the gutter and overview ruler marks. */
  heat: number;
  /** What the after-line text shows; the front ends word it. */
  figure: LineFigure;
  /** Whether the line gets a code lens (the top lines over the lens threshold). */
  lens: boolean;
  /** Self bytes by kind, most first (the kinds of the CLI, the summary and the timeline). */
  kinds: { kind: KindLabel; bytes: number }[];
}

/**
 * What a decorated line shows, as data: its own bytes (▲), with its inclusive bytes beside them
 * when those are much larger (⊂); or only the bytes of the calls it makes; or, in compare mode
 * (built by the front end from diffAttributions), its change against a baseline.
 */
export type LineFigure =
  | { kind: 'self'; inclusive: boolean }
  | { kind: 'calls' }
  | { kind: 'change'; deltaBytes: number; baseline: string };

export interface AnnotateOptions {
  /** A line is annotated when its self or inclusive bytes reach this share of the total… */
  minShare: number;
  /** …and at least this many bytes. */
  minBytes: number;
  /** Inclusive is shown when it is at least this many times self. */
  inclusiveFactor: number;
  lensTopN: number;
  lensMinShare: number;
}

export const DEFAULT_ANNOTATE: AnnotateOptions = {
  minShare: 0.005,
  minBytes: 1 << 20,
  inclusiveFactor: 2,
  lensTopN: 5,
  lensMinShare: 0.05,
};

export function heatOf(share: number): number {
  return share >= 0.25 ? 4 : share >= 0.1 ? 3 : share >= 0.03 ? 2 : share >= 0.01 ? 1 : 0;
}

export interface Annotated {
  byFile: Map<string, LineAnnotation[]>;
  /** Frames' files that map to no workspace file, with the bytes they hold: never dropped silently. */
  unmapped: { file: string; selfBytes: number; lines: number }[];
  total: number;
}

/**
 * Chooses the lines to annotate and what each shows. `map` turns a frame's path into a workspace file
 * (undefined: unmapped).
 */
export function annotate(
  attr: Attribution,
  map: (file: string) => string | undefined,
  opts: AnnotateOptions = DEFAULT_ANNOTATE,
): Annotated {
  const total = attr.totalBytes;
  const floor = Math.max(opts.minBytes, opts.minShare * total);
  const byFile = new Map<string, LineAnnotation[]>();
  const unmapped = new Map<string, { file: string; selfBytes: number; lines: number }>();
  const lensFloor = opts.lensMinShare * total;
  const lensLines = new Set(
    attr.lines
      .filter((l) => l.selfBytes >= lensFloor && l.selfBytes > 0)
      .slice(0, opts.lensTopN)
      .map((l) => `${l.file}:${l.line}`),
  );
  for (const l of attr.lines) {
    if (l.selfBytes < floor && l.inclusiveBytes < floor) continue;
    const local = map(l.file);
    if (!local) {
      const u = unmapped.get(l.file) ?? { file: l.file, selfBytes: 0, lines: 0 };
      u.selfBytes += l.selfBytes;
      u.lines++;
      unmapped.set(l.file, u);
      continue;
    }
    const share = total > 0 ? l.selfBytes / total : 0;
    const inclusive = l.inclusiveBytes >= opts.inclusiveFactor * l.selfBytes && l.inclusiveBytes - l.selfBytes >= floor;
    const figure: LineFigure = l.selfBytes >= floor ? { kind: 'self', inclusive } : { kind: 'calls' };
    const a: LineAnnotation = {
      file: local,
      line: l.line,
      function: l.name,
      selfBytes: l.selfBytes,
      inclusiveBytes: l.inclusiveBytes,
      blocks: l.selfBlocks,
      largest: l.largest.map((b) => b.bytes),
      share,
      heat: heatOf(share),
      figure,
      lens: lensLines.has(`${l.file}:${l.line}`),
      kinds: kindEntries(l.kindBytes),
    };
    const list = byFile.get(local) ?? [];
    list.push(a);
    byFile.set(local, list);
  }
  for (const list of byFile.values()) list.sort((a, b) => a.line - b.line);
  return { byFile, unmapped: [...unmapped.values()].sort((a, b) => b.selfBytes - a.selfBytes), total };
}
