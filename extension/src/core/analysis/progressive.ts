import { loadSnapshotFile } from '../snapshot/load';
import type { LoadOptions } from '../snapshot/load';
import type { Snapshot } from '../snapshot/model';
import { answerPartial } from './partialAnswer';
import type { PartialAnswer } from './partialAnswer';

export interface ProgressiveOptions extends LoadOptions {
  /** Called with the peak and top lines of the trace read so far, while the rest is read. */
  onPartial: (a: PartialAnswer) => void;
  /** The first answer once this long has been spent reading (ms; default 1,000). */
  firstAfterMs?: number;
}

/**
 * Loads a snapshot and answers from the part already read: first after `firstAfterMs`, then once
 * the events read have grown fourfold and the reading since took eight times as long as the last
 * answer, never past 60 % of the file (the whole answer is near by then). Each answer replays the
 * rows so far, so their costs grow geometrically: together under one replay of the whole trace
 * (measured in docs/measurements.md), however large the file.
 */
export async function loadProgressively(path: string, opts: ProgressiveOptions): Promise<Snapshot> {
  const { onPartial, firstAfterMs = 1000, onRows, ...rest } = opts;
  const t0 = performance.now();
  let next = t0 + firstAfterMs;
  let events = 0;
  return loadSnapshotFile(path, {
    ...rest,
    onRows: (sofar, read, total, n) => {
      onRows?.(sofar, read, total, n);
      const now = performance.now();
      if (now < next || n < 4 * events || (total !== undefined && read > 0.6 * total)) return;
      const answer = answerPartial(sofar(), read, total);
      events = answer.events;
      if (events > 0) onPartial(answer);
      next = performance.now() + 8 * (performance.now() - now);
    },
  });
}
