import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { FrameKind } from '../analysis/userCode';
import { formatBytes } from '../../shared/format';
import type { Finding } from '../lint/types';
import type { Snapshot } from '../snapshot/model';
import type { LeakReport } from './leaks';

/** A run's leak report, named, with how its (capture machine's) paths match the linted file. */
export interface RunEvidence {
  run: string;
  leak: LeakReport;
  /** Whether a path in the snapshot is this workspace file (paths differ between machines). */
  sameFile(snapshotPath: string): boolean;
  /** Lines (1-based) of this file where the run allocated anything: the code it ran. */
  ran: ReadonlySet<number>;
}

/**
 * Joins static findings with what a run measured, loop by loop:
 *  - growth created inside the flagged loop → "confirmed by run R: +X per iteration";
 *  - the loop ran, the flagged statement ran, and nothing grew → the finding costs nothing on the
 *    GPU (total_loss += loss right after backward): it says so and drops to a hint.
 * Findings without a loop (evidence) or in code the run did not reach are left as they are.
 */
export function withEvidence(findings: readonly Finding[], runs: readonly RunEvidence[]): Finding[] {
  return findings.map((f) => {
    const ev = f.evidence;
    if (!ev) return f;
    const from = ev.loopLine + 1;
    const to = (ev.loopEndLine ?? ev.line) + 1;
    for (const r of runs) {
      const grown = r.leak.lines.filter((l) => r.sameFile(l.file) && l.line >= from && l.line <= to);
      // An accumulation allocates its result each time: if the run never allocated there, the
      // growth in the loop is someone else's (a list next to it).
      const statementRan = f.rule !== 'HR001' || r.ran.has(ev.line + 1);
      if (r.leak.leaking && grown.length && statementRan) {
        const bytes = grown.reduce((x, l) => x + l.bytesPerIteration, 0);
        return {
          ...f,
          message: `${f.message} Confirmed by run ${r.run}: +${formatBytes(bytes)} per iteration (created at line ${grown.map((l) => l.line).join(', ')}).`,
        };
      }
      const ranLoop = [...r.ran].some((l) => l >= from && l <= to);
      if (r.leak.basis !== 'none' && !r.leak.leaking && ranLoop && r.ran.has(ev.line + 1) && grown.length === 0)
        return {
          ...f,
          severity: 'info',
          message: `${f.message} Run ${r.run} measured ${formatBytes(Math.max(0, r.leak.bytesPerIteration))} per iteration here: it costs nothing on the GPU (a hint; it still keeps Python-side graph nodes).`,
        };
    }
    return f;
  });
}

/** Per file (as the snapshot names it): the 1-based lines that allocated (any user frame of any block's stack). */
export function linesRanByFile(s: Snapshot, a: DeviceAnalysis): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const e = a.replay.elements;
  const seen = new Set<number>();
  for (let k = 0; k < e.count; k++) {
    const stack = e.stack[k]!;
    if (seen.has(stack)) continue;
    seen.add(stack);
    for (const f of s.stacks.get(stack)) {
      if (a.classifier.kind(f) !== FrameKind.User) continue;
      const file = s.frames.fileOf(f);
      const set = out.get(file) ?? new Set<number>();
      set.add(s.frames.lineOf(f));
      out.set(file, set);
    }
  }
  return out;
}

/** The 1-based lines of one file (matched by `sameFile`) that allocated in a snapshot. */
export function linesRan(s: Snapshot, a: DeviceAnalysis, sameFile: (path: string) => boolean): Set<number> {
  const out = new Set<number>();
  for (const [file, lines] of linesRanByFile(s, a)) if (sameFile(file)) for (const l of lines) out.add(l);
  return out;
}
