import { join } from 'node:path';
import * as vscode from 'vscode';
import { CommandId } from './host/commandIds';
import { createLog } from './host/log';
import { MainCodeLens } from './host/mainCodeLens';
import { openSnapshotCommand } from './host/openSnapshot';
import { notifyFinished, openRunCommand, runFileCommand, runTorchrunCommand } from './host/runCommands';
import { RunController } from './host/runs';
import { MemoryStatusBar } from './host/statusBar';

/** Composes the extension. Every disposable is registered here, in context.subscriptions. */
export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  context.subscriptions.push(log);
  const deps = {
    extensionUri: context.extensionUri,
    log,
    track: (d: vscode.Disposable) => context.subscriptions.push(d),
  };
  const runs = new RunController(join(context.extensionPath, 'extension', 'agent'), log, (r) => void notifyFinished(deps, r));
  const cmd = (id: CommandId, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  context.subscriptions.push(
    runs,
    new MemoryStatusBar(runs),
    vscode.languages.registerCodeLensProvider({ language: 'python', scheme: 'file' }, new MainCodeLens()),
    cmd(CommandId.OpenSnapshot, (uri?: vscode.Uri) => openSnapshotCommand(deps, uri)),
    cmd(CommandId.RunFile, (uri?: vscode.Uri) => runFileCommand(runs, uri)),
    cmd(CommandId.RunTorchrun, (uri?: vscode.Uri) => runTorchrunCommand(runs, uri)),
    cmd(CommandId.CaptureSnapshot, () => runs.capture()),
    cmd(CommandId.StopRun, () => runs.stop()),
    cmd(CommandId.OpenRun, (uri?: vscode.Uri) => openRunCommand(deps, uri)),
  );
  log.info(`Headroom ${context.extension.packageJSON.version as string} activated`);
}

export function deactivate(): void {}
