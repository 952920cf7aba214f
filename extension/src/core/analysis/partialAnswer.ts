import type { Snapshot } from '../snapshot/model';
import { traceOf } from '../snapshot/model';
import { attribute } from './attribution';
import type { Bucket, LineStat } from './attribution';
import { classifyBackward } from './backward';
import { liveAt, replay } from './replay';
import { roundingFrom } from './rounding';
import { FrameClassifier } from './userCode';

/** The first answer of a file still being read: the peak of the trace so far and what held it. */
export interface PartialAnswer {
  /** Trace entries read so far, and the bytes of the file read. */
  events: number;
  read: number;
  total: number | undefined;
  /** Requested bytes at the peak so far (the headline figure), its event and time. */
  peakBytes: number;
  peakIndex: number;
  peakTimeUs: number | null;
  /** Lines holding the most at that peak (innermost user frame), largest first. */
  lines: LineStat[];
  buckets: Bucket[];
}

const TOP = 10;

/**
 * The same replay and attribution as the full analysis, on the rows read so far, from an empty
 * start (what the file's end state would say about blocks allocated before the trace is not read
 * yet). Costs one replay of the rows so far: the caller spaces the calls out.
 */
export function answerPartial(s: Snapshot, read: number, total: number | undefined): PartialAnswer {
  const t = traceOf(s, 0);
  const r = replay(t, [], roundingFrom(null));
  const cls = new FrameClassifier(s.frames);
  const at = attribute(s, r.elements, liveAt(r.elements, r.peak.index), cls, classifyBackward(s, t, r.elements, cls));
  const lines = [...at.lines].sort((a, b) => b.selfBytes - a.selfBytes).slice(0, TOP);
  return {
    events: t.length,
    read,
    total,
    peakBytes: r.peak.requestedBytes,
    peakIndex: r.peak.index,
    peakTimeUs: r.peak.timeUs,
    lines,
    buckets: at.buckets,
  };
}
