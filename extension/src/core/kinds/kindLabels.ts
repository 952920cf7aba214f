import { CATEGORY_LABELS, Category } from '../timeline/categories';

/**
 * The kinds of blocks every surface names (blockKinds.ts says how each is found): the lifetime roles
 * of timeline/categories.ts, by the same numbers and names, then two verdicts over them.
 */
export const enum Kind {
  Parameter = Category.Parameter,
  Gradient = Category.Gradient,
  Optimizer = Category.Optimizer,
  Activation = Category.Activation,
  Temporary = Category.Temporary,
  BeforeRecording = Category.BeforeRecording,
  Other = Category.Other,
  Leaked = 7,
  Workspace = 8,
}

export const KIND_LABELS = [...CATEGORY_LABELS, 'leaked', 'library workspaces'] as const;
export const KIND_COUNT = KIND_LABELS.length;
export type KindLabel = (typeof KIND_LABELS)[number];

/** What a kind means, in a few words for a hover or a CLI note (the notable kinds only). */
export const KIND_NOTES: Partial<Record<KindLabel, string>> = {
  leaked: 'kept across iterations: the leak check found it growing every iteration',
  'library workspaces': 'cuBLAS/cuBLASLt keep them for the whole process, one per thread and stream, allocated at the first matmul',
};

/** "leaked 136 MiB, library workspaces 65.0 MiB": the kinds holding bytes, most first. */
export function kindEntries(bytes: readonly number[] | undefined): { kind: KindLabel; bytes: number }[] {
  if (!bytes) return [];
  return bytes
    .map((b, i) => ({ kind: KIND_LABELS[i]!, bytes: b }))
    .filter((x) => x.bytes > 0)
    .sort((x, y) => y.bytes - x.bytes);
}

/** The notable kinds in a few words, for a hover's line. */
export const KIND_SHORT: Partial<Record<KindLabel, string>> = {
  leaked: 'kept across iterations',
  'library workspaces': "cuBLAS's, kept for the process",
};

/** A line's kinds in one short clause: "leaked (kept across iterations)", or each with its bytes when several. */
export function kindsShort(entries: readonly { kind: KindLabel; bytes: number }[], format: (b: number) => string): string {
  if (entries.length === 1) {
    const k = entries[0]!.kind;
    return KIND_SHORT[k] ? `${k} (${KIND_SHORT[k]})` : k;
  }
  return kindsClause(entries, format);
}

/** The kind holding most of a line's bytes, and whether others hold over a tenth of them. */
export function mainKind(entries: readonly { kind: KindLabel; bytes: number }[]): { kind: KindLabel; mixed: boolean } | undefined {
  const [top] = entries;
  if (!top) return undefined;
  const all = entries.reduce((t, k) => t + k.bytes, 0);
  return { kind: top.kind, mixed: top.bytes < 0.9 * all };
}

/** A line's kinds as one clause: "leaked 133 MiB, temporaries 2.00 MiB" (format: the caller's bytes formatter). */
export function kindsClause(entries: readonly { kind: KindLabel; bytes: number }[], format: (b: number) => string): string {
  return entries.map((k) => `${k.kind} ${format(k.bytes)}`).join(', ');
}
