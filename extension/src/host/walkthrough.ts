import * as vscode from 'vscode';

/** What the Getting Started walkthrough's steps wait for (its completionEvents name these keys). */
export type WalkthroughStep = 'snapshotOpened' | 'ranScript' | 'quickFixApplied';

/**
 * Marks a step done by setting its context key: the workbench completes the step on
 * `onContext:headroom.walkthrough.<step>` whichever way the user did it (a command, a custom
 * editor, a code lens, a quick fix), not only through one command id.
 */
export function stepDone(step: WalkthroughStep): void {
  void vscode.commands.executeCommand('setContext', `headroom.walkthrough.${step}`, true);
}
