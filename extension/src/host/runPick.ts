import { basename } from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../shared/format';
import { processLabel } from '../core/run/processes';
import { bestSnapshot, readRun } from '../core/run/runFolder';
import type { BackwardWindow, ProcessRun, Run } from '../core/run/runFolder';
import { messageText } from '../core/text';

/** A process of a run with the snapshot to show for it, and its highest recorded peak. */
export interface PickedProcess {
  path: string;
  rank: number | null;
  peak: number;
  process: ProcessRun;
}

/** What a process recorded beside its snapshots: backward() windows and source hashes. */
export function runContext(p: ProcessRun): { calls: BackwardWindow[]; sources?: Record<string, string> } {
  const sources = p.meta?.sources as Record<string, string> | undefined;
  return { calls: p.backward, ...(sources ? { sources } : {}) };
}

function peakOf(p: ProcessRun): number {
  let peak = 0;
  for (const s of p.samples) if (s.max_allocated > peak) peak = s.max_allocated;
  return peak;
}

/** Every process of a run that has a snapshot, the highest peak first (the "worst" process). */
export function processesWithSnapshots(run: Run): PickedProcess[] {
  return run.processes
    .flatMap((p) => {
      const s = bestSnapshot(p);
      return s ? [{ path: s.path, rank: p.rank, peak: peakOf(p), process: p }] : [];
    })
    .sort((a, b) => b.peak - a.peak);
}

/** The run and its worst process (the highest recorded peak). */
export function pick(dir: string): { run: Run; best: PickedProcess | undefined } {
  const run = readRun(dir, { samples: 'tail' });
  return { run, best: processesWithSnapshots(run)[0] };
}

/** A title for a process: "<run> rank 1", "<run> pid 4242" or "<run>". */
export function processTitle(run: Run, p: PickedProcess): string {
  const label = processLabel(p.process);
  return `${basename(run.dir)}${label ? ` ${label}` : ''}`;
}

/** With several processes (processesWithSnapshots' list), asks which one to open, the worst first; undefined if dismissed. */
export async function chooseProcess(run: Run, all: readonly PickedProcess[]): Promise<PickedProcess | undefined> {
  if (all.length <= 1) return all[0];
  const items = all.map((p, i) => ({
    label: messageText(processLabel(p.process) || vscode.l10n.t('launched process')),
    description: `${vscode.l10n.t('peak {0} allocated', formatBytes(p.peak))}${i === 0 ? ` · ${vscode.l10n.t('the fullest')}` : ''}`,
    detail: messageText(basename(p.path)),
    process: p,
  }));
  const chosen = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('{0}: {1} processes recorded memory', messageText(basename(run.dir)), all.length),
    placeHolder: vscode.l10n.t('Open which process?'),
  });
  return chosen?.process;
}
