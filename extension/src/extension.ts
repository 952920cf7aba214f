import * as vscode from 'vscode';
import { CommandId } from './host/commandIds';
import { createLog } from './host/log';
import { openSnapshotCommand } from './host/openSnapshot';

/** Composes the extension. Every disposable is registered here, in context.subscriptions. */
export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  context.subscriptions.push(log);
  const deps = {
    extensionUri: context.extensionUri,
    log,
    track: (d: vscode.Disposable) => context.subscriptions.push(d),
  };
  context.subscriptions.push(vscode.commands.registerCommand(CommandId.OpenSnapshot, (uri?: vscode.Uri) => openSnapshotCommand(deps, uri)));
  log.info(`Headroom ${context.extension.packageJSON.version as string} activated`);
}

export function deactivate(): void {}
