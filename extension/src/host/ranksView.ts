import * as vscode from 'vscode';
import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import type { DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import { formatBytes } from '../shared/format';
import { limitsFromSetting } from '../core/limits';
import type { RanksView } from '../core/protocol';
import { crossRank, distributedRunOf, rankProcesses } from '../core/run/ranks';
import { rankRead } from '../core/run/rankRead';
import type { RankRead } from '../core/run/ranks';
import { bestSnapshot } from '../core/run/runFolder';
import type { ProcessRun, Run } from '../core/run/runFolder';
import type { Attribution } from '../core/analysis/attribution';
import { loadSnapshotFile } from '../core/snapshot/load';
import type { Snapshot } from '../core/snapshot/model';

/** Other ranks' snapshots are read here, on the extension host, only up to this size each and this many: more is `headroom ranks`'s job. */
const MAX_OTHER_BYTES = 64 << 20;
const MAX_OTHER_RANKS = 15;

/**
 * The ranks section of a summary when the snapshot sits in a rank's folder of a distributed run
 * (`run`, read by the caller): first from the samples and this rank's snapshot (`atPeak`: its
 * attribution at the peak, when the caller has it), then (`later`) with the other ranks' lines,
 * read in the background.
 */
export function ranksFor(
  c: { snapshot: Snapshot; analysis: DeviceAnalysis; path: string },
  log: vscode.LogOutputChannel,
  run: Run | undefined,
  atPeak: Attribution | undefined,
): { first: RanksView; later: Promise<RanksView> | undefined } | undefined {
  const d = distributedRunOf(c.path, run);
  if (!d) return undefined;
  const reads = new Map<ProcessRun, RankRead | undefined>();
  const ranks = rankProcesses(d.run);
  const own = ranks.find((p) => p.rank === d.rank);
  if (own) reads.set(own, rankRead(c.snapshot, c.analysis, atPeak));
  const others = ranks.filter((p) => p !== own && bestSnapshot(p));
  const big = others.filter((p, i) => bestSnapshot(p)!.bytes > MAX_OTHER_BYTES || i >= MAX_OTHER_RANKS);
  const toRead = others.filter((p) => !big.includes(p));
  const view = (note?: string): RanksView => ({
    current: d.rank,
    ...crossRank(d.run, (p) => reads.get(p), 10),
    ...(note ? { linesNote: note } : {}),
  });
  const bigNote = big.length
    ? vscode.l10n.t(
        'Ranks {0}: not read here (snapshots over {1}, or more than {2} other ranks); `headroom ranks` compares all of them.',
        big.map((p) => p.rank).join(', '),
        formatBytes(MAX_OTHER_BYTES),
        MAX_OTHER_RANKS,
      )
    : undefined;
  if (!toRead.length) return { first: view(bigNote), later: undefined };
  const { limits } = limitsFromSetting(vscode.workspace.getConfiguration('headroom').get('limits'));
  const later = (async () => {
    for (const p of toRead) {
      const path = bestSnapshot(p)!.path;
      try {
        const s = await loadSnapshotFile(path, { limits });
        const dev = defaultDevice(s);
        if (dev !== undefined) reads.set(p, rankRead(s, analyzeDevice(s, dev)));
      } catch (e) {
        log.warn(`rank ${p.rank}: ${path}: ${(e as Error).message} (its lines are left out of the ranks section)`);
      }
    }
    return view(bigNote);
  })();
  return { first: view(vscode.l10n.t('Reading the other ranks’ snapshots for their lines…')), later };
}
