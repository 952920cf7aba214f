import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { RunController } from './runs';

/** The script a run folder's launch.json ran (the first .py argument), for a snapshot in or beside it. */
function scriptOf(snapshot: string): string | undefined {
  for (const dir of [dirname(snapshot), dirname(dirname(snapshot))]) {
    const launch = join(dir, 'launch.json');
    if (!existsSync(launch)) continue;
    try {
      const cmd = (JSON.parse(readFileSync(launch, 'utf8')) as { command?: unknown }).command;
      const py = Array.isArray(cmd) ? cmd.find((a): a is string => typeof a === 'string' && a.endsWith('.py')) : undefined;
      if (py && existsSync(py)) return py;
    } catch {
      // an unreadable launch.json: ask instead
    }
  }
  return undefined;
}

/**
 * A remedy's "Re-run with this setting": the same workload again with the allocator settings or a
 * memory cap changed for this run only (the run's launch.json and the log show the command and the setting).
 */
export async function rerunWithCommand(runs: RunController, snapshot: string | undefined, change: { allocConf?: Record<string, string> | undefined; capGib?: number | undefined }): Promise<void> {
  const allocConf = change.allocConf && Object.keys(change.allocConf).length ? change.allocConf : undefined;
  const capGib = typeof change.capGib === 'number' && change.capGib > 0 ? change.capGib : undefined;
  if (!allocConf && !capGib) return;
  let script = snapshot ? scriptOf(snapshot) : undefined;
  if (!script) {
    const picked = await vscode.window.showOpenDialog({ title: 'Re-run which script?', filters: { Python: ['py'] }, canSelectMany: false });
    script = picked?.[0]?.fsPath;
  }
  if (script) await runs.start({ script: vscode.Uri.file(script), ...(allocConf ? { allocConf } : {}), ...(capGib ? { capGib } : {}) });
}
