import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { messageText } from '../core/text';
import type { RunOrigins } from './runOrigin';
import type { RunController } from './runs';
import { readJson } from '../core/run/runFolder';

/** The script a run folder's launch.json ran (the first .py argument), and that folder, for a snapshot in or beside it. */
function scriptOf(snapshot: string): { script: string; folder: string } | undefined {
  for (const dir of [dirname(snapshot), dirname(dirname(snapshot))]) {
    // The run folder's own reader: a regular file inside the folder, size-capped; else absent (ask instead).
    const j = readJson(join(dir, 'launch.json'));
    if (!j) continue;
    const py = Array.isArray(j.command) ? j.command.find((a): a is string => typeof a === 'string' && a.endsWith('.py')) : undefined;
    if (!py) continue;
    // The CLI records the command as typed: a relative script is relative to the run's cwd.
    const script = isAbsolute(py) ? py : typeof j.cwd === 'string' && isAbsolute(j.cwd) ? resolve(j.cwd, py) : undefined;
    if (script && existsSync(script)) return { script, folder: dir };
  }
  return undefined;
}

function describe(change: { allocConf?: Record<string, string> | undefined; capGib?: number | undefined }): string {
  const conf = change.allocConf
    ? `PYTORCH_CUDA_ALLOC_CONF=${Object.entries(change.allocConf)
        .map(([k, v]) => `${k}:${v}`)
        .join(',')}`
    : '';
  const cap = change.capGib ? vscode.l10n.t('a {0} GiB memory cap', change.capGib) : '';
  return conf && cap ? vscode.l10n.t('{0} and {1}', conf, cap) : conf || cap;
}

/**
 * A run folder this workspace's Headroom did not write names its script in a launch.json anyone
 * could have edited: say exactly which file would run and ask, once per folder and session.
 */
async function allowed(origins: RunOrigins, folder: string, script: string, what: string): Promise<boolean> {
  if (origins.isOwn(folder)) return true;
  const before = origins.answer(folder);
  if (before !== undefined) {
    if (!before)
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Headroom: re-running from {0} was declined in this session.', messageText(folder)),
      );
    return before;
  }
  const run = vscode.l10n.t('Run This Script');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('Headroom: run a script named by a run folder from elsewhere?'),
    {
      modal: true,
      detail: vscode.l10n.t(
        'This run folder was not written by Headroom in this workspace:\n{0}\n\nIts launch.json names the script to run:\n{1}\n\nIt would run with {2}.',
        messageText(folder),
        messageText(script),
        what,
      ),
    },
    run,
  );
  const yes = pick === run;
  origins.remember(folder, yes);
  return yes;
}

/**
 * A remedy's "Re-run with this setting": the same workload again with the allocator settings or a
 * memory cap changed for this run only (the run's launch.json and the log show the command and the setting).
 */
export async function rerunWithCommand(
  runs: RunController,
  origins: RunOrigins,
  snapshot: string | undefined,
  change: { allocConf?: Record<string, string> | undefined; capGib?: number | undefined },
): Promise<void> {
  const allocConf = change.allocConf && Object.keys(change.allocConf).length ? change.allocConf : undefined;
  const capGib = typeof change.capGib === 'number' && change.capGib > 0 ? change.capGib : undefined;
  if (!allocConf && !capGib) return;
  const what = messageText(describe({ allocConf, capGib }));
  const found = typeof snapshot === 'string' ? scriptOf(snapshot) : undefined;
  let script = found?.script;
  if (found && !(await allowed(origins, found.folder, found.script, what))) return;
  if (!script) {
    const picked = await vscode.window.showOpenDialog({
      title: vscode.l10n.t('Re-run which script?'),
      filters: { Python: ['py'] },
      canSelectMany: false,
    });
    script = picked?.[0]?.fsPath;
  }
  if (!script) return;
  // Whichever way the script was found, the user sees which file runs.
  void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: re-running {0} with {1}.', messageText(script), what));
  await runs.start({ script: vscode.Uri.file(script), ...(allocConf ? { allocConf } : {}), ...(capGib ? { capGib } : {}) });
}
