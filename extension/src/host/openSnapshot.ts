import * as vscode from 'vscode';
import type { At, DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import type { CallWindow } from '../core/analysis/backward';
import { breakdownViews } from '../core/analysis/breakdownView';
import { callTree } from '../core/analysis/callTree';
import { deviceFactsBeside } from '../core/run/deviceFacts';
import { windowNoteBeside } from '../core/run/recordingMode';
import { runBeside } from '../core/run/runFolder';
import { doctorFor } from '../core/diagnose/doctor';
import type { SnapshotErrorCode } from '../core/errors';
import type { FromWebview, ToWebview } from '../core/protocol';
import { buildReport } from '../core/report';
import { messageText } from '../core/text';
import type { Snapshot } from '../core/snapshot/model';
import { ClassNames } from '../core/source/classNames';
import { moduleRows } from '../core/analysis/moduleRows';
import { ranksFor } from './ranksView';
import { afterDecorations } from './afterDecorations';
import { CommandId } from './commandIds';
import { loadWithProgress } from './loadWithProgress';
import type { WorkspaceMapping } from './memory/mapping';
import { openFrameLine, openLibraryLine } from './memory/openFrame';
import type { MemoryView } from './memory/view';
import { SummaryPanel } from './summaryPanel';
import type { SummarySource } from './summaryPanel';
import { ScaleFeed } from './scaleFeed';
import { WhatifFeed } from './whatifFeed';
import { stepDone } from './walkthrough';

export interface OpenSnapshotDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** Where panels are kept so they are disposed with the extension. */
  track(d: vscode.Disposable): void;
  view: MemoryView;
}

/** `Headroom: Open Memory Snapshot…`: pick a pickle, load it, annotate the code, show its summary. */
export async function openSnapshotCommand(deps: OpenSnapshotDeps, uri?: vscode.Uri): Promise<void> {
  const target =
    uri ??
    (
      await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: vscode.l10n.t('Open Snapshot'),
        filters: { [vscode.l10n.t('PyTorch memory snapshots')]: ['pickle', 'pkl', 'gz'], [vscode.l10n.t('All files')]: ['*'] },
      })
    )?.[0];
  if (!target) return;
  if (await showSnapshot(deps, target)) {
    await afterDecorations(deps);
    showSummaryPanel(deps);
  }
}

/**
 * Loads a snapshot (with progress) into the memory view, which annotates the code. False when the
 * user cancelled or the file was refused (the reason was shown).
 */
export async function showSnapshot(
  deps: OpenSnapshotDeps,
  target: vscode.Uri,
  opts: { title?: string; calls?: readonly CallWindow[]; sources?: Record<string, string>; quiet?: readonly SnapshotErrorCode[] } = {},
): Promise<boolean> {
  const t0 = performance.now();
  const s = await loadWithProgress(target, deps.log, opts.quiet);
  if (!s) return false;
  const loadMs = performance.now() - t0;
  try {
    await deps.view.show({
      snapshot: s,
      path: target.fsPath,
      label: opts.title ?? target.path.split('/').pop() ?? vscode.l10n.t('snapshot'),
      ...(opts.calls ? { calls: opts.calls } : {}),
      ...(opts.sources ? { sources: opts.sources } : {}),
    });
  } catch (e) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Headroom: {0}: there is nothing to show.', messageText((e as Error).message)));
    return false;
  }
  const c = deps.view.current!;
  const t = deps.view.timings;
  deps.log.info(
    `showing ${target.fsPath}: device ${c.device}, ${c.analysis.replay.n} events, peak ${c.analysis.replay.peak.requestedBytes} B; ` +
      `engine: load ${loadMs.toFixed(0)} ms, analysis ${t.analysisMs.toFixed(0)} ms; editor: mapping and annotations ${t.annotateMs.toFixed(0)} ms`,
  );
  stepDone('snapshotOpened');
  return true;
}

/** The summary of what the memory view shows now (`Headroom: Show Summary`, lenses, hovers). */
export function showSummaryPanel(deps: OpenSnapshotDeps): void {
  const c = deps.view.current;
  if (!c) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: open a memory snapshot or a run first.'));
    return;
  }
  const src = summaryFor(c, deps.view.mapping, deps.log, deps.view);
  deps.track(new SummaryPanel(deps.extensionUri, src, () => src.dispose()));
}

/**
 * The summary page's message (report and doctor) and what its buttons and links do: shared by the
 * panel and the snapshot editor. `message()` is the latest (a distributed run's ranks section fills
 * in as the other ranks' snapshots are read); `later` is that update, to post. When `c` is what
 * `shown` shows, the summary's breakdowns come from the call tree the view keeps for the hovers.
 */
export function summaryFor(
  c: { snapshot: Snapshot; analysis: DeviceAnalysis; at: At; label: string; path: string },
  mapping: WorkspaceMapping,
  log: vscode.LogOutputChannel,
  shown?: MemoryView,
): SummarySource & { dispose(): void } {
  const { report, attribution } = buildReport(c.snapshot, c.analysis, c.at, 20);
  const modules = moduleRows(c.snapshot, c.analysis, report.at.trace_index);
  // The run folder beside the snapshot, read once for the recording note and the ranks.
  const run = runBeside(c.path);
  const recording = windowNoteBeside(c.path, c.analysis.device, report.peak.requested_bytes, run);
  const ranks = ranksFor(c, log, run, report.at.trace_index === c.analysis.replay.peak.index ? attribution : undefined);
  const index = report.at.trace_index;
  const viewTree = shown?.current === c && shown.current.instant.index === index ? shown.treeNow() : undefined;
  const breakdowns = breakdownViews(viewTree ?? callTree(c.snapshot, c.analysis, index, new ClassNames()), report);
  let message: ToWebview = {
    type: 'summary',
    title: c.label,
    path: c.path,
    report,
    doctor: doctorFor(c.snapshot, c.analysis, deviceFactsBeside(c.path, c.analysis.device)),
    ...(modules ? { modules } : {}),
    ...(recording ? { recording } : {}),
    ...(ranks ? { ranks: ranks.first } : {}),
    ...(breakdowns.length ? { breakdowns } : {}),
  };
  const later = ranks?.later?.then((r): ToWebview => {
    if (message.type === 'summary') message = { ...message, ranks: r };
    return { type: 'ranks', ranks: r };
  });
  const onMessage = (m: FromWebview): void => {
    if (m.type === 'showTimeline') void vscode.commands.executeCommand(CommandId.ShowTimeline);
    // The flame graph of the summary's instant, while the view still shows this snapshot.
    else if (m.type === 'showFlameGraph')
      void vscode.commands
        .executeCommand(CommandId.ShowFlameGraph, ...(shown?.current === c ? [index] : []))
        .then(undefined, (e: unknown) => log.warn(`flame graph: ${String(e)}`));
    // A breakdown row by its place in what was sent: a library line, opened read-only when outside the workspace.
    else if (m.type === 'openBreakdownRow') {
      const row = breakdowns[m.breakdown]?.rows[m.row];
      if (row) void openLibraryLine(mapping, row.file, row.line);
    } else if (m.type === 'remedy') void vscode.commands.executeCommand(CommandId.RerunWith, c.path, m.allocConf, m.capGib);
    else if (m.type === 'whatif') feed.ask(m.allocConf, m.capGib);
    else if (m.type === 'scale') batch.ask(m.scale);
    else if (m.type === 'largestScale') batch.largest();
    // The snapshot's path is the job's machine's: mapped into the workspace as the timeline does, never opened raw.
    else if (m.type === 'openLine') void openFrameLine(mapping, m.file, m.line);
  };
  // The what-if sections: other allocator settings, another batch; computed after the page opens.
  const feed = new WhatifFeed(c.snapshot, c.analysis, log);
  const batch = new ScaleFeed(c.snapshot, c.analysis, log);
  return { message: () => message, onMessage, later, feeds: [feed, batch], dispose: () => (feed.dispose(), batch.dispose()) };
}
