import * as vscode from 'vscode';
import type { At } from '../../core/analysis/deviceAnalysis';
import { analyzeDevice } from '../../core/analysis/analyze';
import { attributeAt } from '../../core/analysis/attributeAt';
import { formatBytes } from '../../shared/format';
import { loadWithProgress } from '../loadWithProgress';
import type { OpenSnapshotDeps } from '../openSnapshot';
import { showSnapshot } from '../openSnapshot';

/** `Headroom: Show Memory At…`: the peak, the end, an OOM, or any trace event. */
export async function showMemoryAtCommand(deps: OpenSnapshotDeps, at?: At): Promise<void> {
  const c = deps.view.current;
  if (!c) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: open a memory snapshot or a run first.'));
    return;
  }
  if (at === undefined) {
    type Item = vscode.QuickPickItem & { at?: At };
    const r = c.analysis.replay;
    const items: Item[] = [
      {
        label: vscode.l10n.t('Peak'),
        description: vscode.l10n.t('{0} at event #{1}', formatBytes(r.peak.requestedBytes), r.peak.index),
        at: 'peak',
      },
      { label: vscode.l10n.t('End of the trace'), description: formatBytes(r.end.requestedBytes), at: 'end' },
      ...c.analysis.ooms.map((o) => ({
        label: vscode.l10n.t('OOM at event #{0}', o.index),
        description: vscode.l10n.t('{0} requested', formatBytes(o.requestedBytes)),
        at: Math.max(-1, o.index - 1),
      })),
      { label: vscode.l10n.t('A trace event…'), description: `0–${r.n - 1}` },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Headroom: show the memory live at…') });
    if (!pick) return;
    if (pick.at === undefined) {
      const v = await vscode.window.showInputBox({
        title: vscode.l10n.t('Trace event'),
        validateInput: (s) => (/^\d+$/.test(s) && Number(s) < r.n ? undefined : vscode.l10n.t('a number from 0 to {0}', r.n - 1)),
      });
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
    c.snapshot.devices.map((d) => ({
      label: vscode.l10n.t('Device {0}', d),
      description: d === c.device ? vscode.l10n.t('shown now') : '',
      d,
    })),
    { title: vscode.l10n.t('Headroom: device') },
  );
  if (pick) await deps.view.setDevice(pick.d);
}

/**
 * `Headroom: Compare Snapshots…`: the baseline and the new snapshot (two files); the code then
 * shows each line's change at the two peaks.
 */
export async function compareCommand(deps: OpenSnapshotDeps, baseline?: vscode.Uri, after?: vscode.Uri): Promise<void> {
  const pickFile = async (title: string) =>
    (
      await vscode.window.showOpenDialog({
        title,
        canSelectMany: false,
        openLabel: vscode.l10n.t('Choose'),
        filters: { [vscode.l10n.t('PyTorch memory snapshots')]: ['pickle', 'pkl', 'gz'] },
      })
    )?.[0];
  const before = baseline ?? (await pickFile(vscode.l10n.t('Headroom: the baseline snapshot (before)')));
  if (!before) return;
  const next = after ?? (await pickFile(vscode.l10n.t('Headroom: the snapshot to compare (after)')));
  if (!next) return;
  const base = await loadWithProgress(before, deps.log);
  if (!base || !(await showSnapshot(deps, next))) return;
  const c = deps.view.current!;
  const d = base.devices.includes(c.device) ? c.device : base.devices[0];
  if (d === undefined) return;
  const a = analyzeDevice(base, d);
  const label = before.path.split('/').pop() ?? vscode.l10n.t('baseline');
  await deps.view.setBaseline(label, attributeAt(base, a, a.replay.peak));
  const delta = c.analysis.replay.peak.requestedBytes - a.replay.peak.requestedBytes;
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      "Headroom: peak {0} → {1} ({2}{3}); the code shows each line's change.",
      formatBytes(a.replay.peak.requestedBytes),
      formatBytes(c.analysis.replay.peak.requestedBytes),
      delta >= 0 ? '+' : '−',
      formatBytes(Math.abs(delta)),
    ),
  );
}
