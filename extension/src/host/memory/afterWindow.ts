import * as vscode from 'vscode';

/**
 * Resolves once the window has taken every message sent before it (the decorations just set): a
 * command the window runs answers after them. Needed because the host sends nothing while its
 * thread is busy, so work done right after setting decorations holds them back (bench:ui: open →
 * decorations 2.17× the engine's time with the summary built at once, 1.37–1.67× after a timer
 * tick, 1.11× after this, as with no summary at all). The key it sets is never read.
 */
export const windowCaughtUp = async (): Promise<void> => {
  await vscode.commands.executeCommand('setContext', 'headroom.annotated', true);
};

/**
 * `changed`, again once the window has what it sent: for listeners with work of their own (run
 * diagnostics, an open timeline's or flame graph's model), which would otherwise hold the
 * decorations back. Changes while one is on its way share it.
 */
export class AfterWindow implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly event = this.emitter.event;
  private pending = false;
  private readonly sub: vscode.Disposable;

  constructor(changed: vscode.Event<void>) {
    this.sub = changed(() => {
      if (this.pending) return;
      this.pending = true;
      // Behind a microtask: asked after every listener of this change has sent its messages.
      const done = (fire: boolean) => {
        this.pending = false;
        if (fire) this.emitter.fire();
      };
      void Promise.resolve()
        .then(windowCaughtUp)
        .then(
          () => done(true),
          () => done(false),
        );
    });
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}
