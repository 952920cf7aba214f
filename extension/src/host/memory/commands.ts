import * as vscode from 'vscode';
import type { At } from '../../core/analysis/analyze';
import { analyzeDevice, attributeAt } from '../../core/analysis/analyze';
import { formatBytes } from '../../core/format';
import { loadWithProgress } from '../loadWithProgress';
import type { OpenSnapshotDeps } from '../openSnapshot';
import { showSnapshot } from '../openSnapshot';

/** `Headroom: Show Memory At…`: the peak, the end, an OOM, or any trace event. */
export async function showMemoryAtCommand(deps: OpenSnapshotDeps, at?: At): Promise<void> {
  const c = deps.view.current;
  if (!c) {
    void vscode.window.showInformationMessage('Headroom: open a memory snapshot or a run first.');
    return;
  }
  if (at === undefined) {
    type Item = vscode.QuickPickItem & { at?: At };
    const r = c.analysis.replay;
    const items: Item[] = [
      { label: 'Peak', description: `${formatBytes(r.peak.requestedBytes)} at event #${r.peak.index}`, at: 'peak' },
      { label: 'End of the trace', description: formatBytes(r.end.requestedBytes), at: 'end' },
      ...c.analysis.ooms.map((o) => ({ label: `OOM at event #${o.index}`, description: `${formatBytes(o.requestedBytes)} requested`, at: Math.max(-1, o.index - 1) })),
      { label: 'A trace event…', description: `0–${r.n - 1}` },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Headroom: show the memory live at…' });
    if (!pick) return;
    if (pick.at === undefined) {
      const v = await vscode.window.showInputBox({ title: 'Trace event', validateInput: (s) => (/^\d+$/.test(s) && Number(s) < r.n ? undefined : `a number from 0 to ${r.n - 1}`) });
      if (v === undefined) return;
      at = Number(v);
    } else at = pick.at;
  }
  await deps.view.setInstant(at);
}

/** `Headroom: Select Device…` (a rank's device, or any device of a multi-GPU snapshot). */
export async function selectDeviceCommand(deps: OpenSnapshotDeps): Promise<void> {
  const c = deps.view.current;
  if (!c) return;
  const pick = await vscode.window.showQuickPick(
    c.snapshot.devices.map((d) => ({ label: `Device ${d}`, description: d === c.device ? 'shown now' : '', d })),
    { title: 'Headroom: device' },
  );
  if (pick) await deps.view.setDevice(pick.d);
}

/**
 * `Headroom: Compare Snapshots…`: the baseline and the new snapshot (two files); the code then
 * shows each line's change at the two peaks.
 */
export async function compareCommand(deps: OpenSnapshotDeps, baseline?: vscode.Uri, after?: vscode.Uri): Promise<void> {
  const pickFile = async (title: string) =>
    (await vscode.window.showOpenDialog({ title, canSelectMany: false, openLabel: 'Choose', filters: { 'PyTorch memory snapshots': ['pickle', 'pkl', 'gz'] } }))?.[0];
  const before = baseline ?? (await pickFile('Headroom: the baseline snapshot (before)'));
  if (!before) return;
  const next = after ?? (await pickFile('Headroom: the snapshot to compare (after)'));
  if (!next) return;
  const base = await loadWithProgress(before, deps.log);
  if (!base || !(await showSnapshot(deps, next))) return;
  const c = deps.view.current!;
  const d = base.devices.includes(c.device) ? c.device : base.devices[0];
  if (d === undefined) return;
  const a = analyzeDevice(base, d);
  const label = before.path.split('/').pop() ?? 'baseline';
  await deps.view.setBaseline(label, attributeAt(base, a, a.replay.peak));
  const delta = c.analysis.replay.peak.requestedBytes - a.replay.peak.requestedBytes;
  void vscode.window.showInformationMessage(`Headroom: peak ${formatBytes(a.replay.peak.requestedBytes)} → ${formatBytes(c.analysis.replay.peak.requestedBytes)} (${delta >= 0 ? '+' : '−'}${formatBytes(Math.abs(delta))}); the code shows each line's change.`);
}
