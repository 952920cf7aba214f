import type { SyntaxNode } from '../syntax/syntaxNode';

/**
 * What the last lints of one document found about its functions (their summaries, helper facts,
 * callers' grad mode), kept by an editor's session from one keystroke to the next. An edit re-lints
 * only the units it touched when nothing another function reads of them changed (crossCheck.ts), so
 * the facts of every function outside those units still hold: a function found at the same place
 * (moved by the edit) with the same text gets them back instead of recomputing them on the new tree.
 */
export class CarriedFacts {
  /** By the function's start (as moved by the edits since): its text then, and each fact by part. */
  private byStart = new Map<number, { text: string; facts: Map<string, unknown> }>();
  /** Facts given back rather than computed, so far. */
  hits = 0;

  get size(): number {
    return this.byStart.size;
  }

  /** Moves the kept facts through one change of the text; those of a function it touched are dropped. */
  shift(offset: number, length: number, inserted: number): void {
    const next = new Map<number, { text: string; facts: Map<string, unknown> }>();
    for (const [at, e] of this.byStart) {
      if (at + e.text.length <= offset) next.set(at, e);
      else if (at >= offset + length) next.set(at + inserted - length, e);
    }
    this.byStart = next;
  }

  clear(): void {
    this.byStart.clear();
  }

  /** Drops the facts of the functions in [a, b) (a unit being re-linted: their context may have changed). */
  dropWithin(a: number, b: number): void {
    for (const at of [...this.byStart.keys()]) if (at >= a && at < b) this.byStart.delete(at);
  }

  get(fn: SyntaxNode, part: string): { value: unknown } | undefined {
    const e = this.byStart.get(fn.startIndex);
    if (!e || !e.facts.has(part) || e.text !== fn.text) return undefined;
    this.hits++;
    return { value: e.facts.get(part) };
  }

  set(fn: SyntaxNode, part: string, value: unknown): void {
    let e = this.byStart.get(fn.startIndex);
    const text = fn.text;
    if (!e || e.text !== text) this.byStart.set(fn.startIndex, (e = { text, facts: new Map() }));
    e.facts.set(part, value);
  }
}

const inUse = new WeakMap<object, { facts: CarriedFacts; dirty: readonly SyntaxNode[] | undefined }>();

/** While a tree is linted: these facts apply to its functions outside `dirty` (undefined: a full lint, none dirty). */
export function useCarried(tree: object, facts: CarriedFacts, dirty: readonly SyntaxNode[] | undefined): void {
  for (const u of dirty ?? []) facts.dropWithin(u.startIndex, u.endIndex);
  inUse.set(tree, { facts, dirty });
}

export function stopCarried(tree: object): void {
  inUse.delete(tree);
}

let unsure = false;

/**
 * A fact just computed depends on the order it was asked in (a recursion read as unknown): the
 * facts being computed around it are not kept (a full lint may ask in another order).
 */
export function markUnsure(): void {
  unsure = true;
}

/** A fact of fn, from the facts carried over when fn lies outside the units being re-linted, else computed (and kept). */
export function carried<T>(fn: SyntaxNode, part: string, compute: () => T): T {
  const c = inUse.get(fn.tree);
  if (!c) return compute();
  const inDirty = !!c.dirty?.some((u) => u.startIndex <= fn.startIndex && fn.endIndex <= u.endIndex);
  if (!inDirty) {
    const hit = c.facts.get(fn, part);
    if (hit) return hit.value as T;
  }
  const outer = unsure;
  unsure = false;
  try {
    const v = compute();
    if (!unsure && !inDirty) c.facts.set(fn, part, v);
    return v;
  } finally {
    unsure ||= outer;
  }
}
