import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type * as vscode from 'vscode';
import { cliShims } from '../core/run/cliShim';

/**
 * Puts the extension's `headroom` on the integrated terminal's PATH (appended: a `headroom` the
 * user installed comes first), from a folder of the extension's global storage. A failure is
 * logged and the terminal keeps its PATH.
 */
export function putCliOnTerminalPath(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  try {
    const bin = join(context.globalStorageUri.fsPath, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const f of cliShims(process.execPath, join(context.extensionPath, 'dist', 'cli.js'), process.platform)) {
      const path = join(bin, f.name);
      let current: string | undefined;
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        // not written yet
      }
      if (current !== f.text) writeFileSync(path, f.text);
      chmodSync(path, 0o755);
    }
    context.environmentVariableCollection.description = 'Adds the `headroom` command line to PATH';
    context.environmentVariableCollection.append('PATH', `${delimiter}${bin}`);
  } catch (e) {
    log.warn(`the headroom command is not on the terminal's PATH: ${(e as Error).message}`);
  }
}
