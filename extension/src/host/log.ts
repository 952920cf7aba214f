import * as vscode from 'vscode';

/** The one Headroom output channel (a LogOutputChannel: levels, timestamps). */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Headroom', { log: true });
}
