import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export interface WaitOptions {
  /**
   * The hang guard (ms): long enough that only a hung run reaches it, never a slow machine
   * (the project's rule: no time limit inside a test, a generous hang guard is fine).
   */
  guardMs?: number;
  /** The pause between two reads (ms). */
  everyMs?: number;
  /**
   * At the guard, return the last value instead of failing: for a wait whose end the caller
   * handles itself (a sample that may never match, or cleanup before its own assertion).
   */
  returnLast?: boolean;
}

/** The default hang guard: above every bound the hand-written loops had (30 s at most). */
export const HANG_GUARD_MS = 60_000;

/** A value for a failure message, cut short in the middle when long. */
function shown(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : inspect(v, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
  return s.length > 2000 ? `${s.slice(0, 1000)} … ${s.slice(-1000)}` : s;
}

/**
 * Reads `read()` until `done` holds for what it returned (truthy, by default), and returns that
 * value. Past the hang guard it throws, naming `what` was awaited and the last value read (or,
 * with `returnLast`, returns that value). A read that throws ends the wait with its error.
 */
export async function waitFor<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (v: T) => boolean = Boolean,
  { guardMs = HANG_GUARD_MS, everyMs = 200, returnLast = false }: WaitOptions = {},
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    const waited = Date.now() - start;
    if (waited >= guardMs) {
      if (returnLast) return v;
      throw new Error(`waited ${(waited / 1000).toFixed(1)} s for ${what}; last seen: ${shown(v)}`);
    }
    await sleep(everyMs);
  }
}
