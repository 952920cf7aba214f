import type * as vscode from 'vscode';
import { windowCaughtUp } from './memory/afterWindow';
import type { MemoryView } from './memory/view';

/**
 * After the window has the decorations: the part of the analysis they do not need (the allocator
 * replay, run on first read), its time logged (bench:ui counts it in the engine's). The summary follows.
 */
export async function afterDecorations(shown: { view: MemoryView; log: vscode.LogOutputChannel }): Promise<void> {
  await windowCaughtUp();
  const c = shown.view.current;
  if (!c) return;
  const t0 = performance.now();
  void c.analysis.allocated;
  shown.log.info(`${c.path}: allocator replay ${(performance.now() - t0).toFixed(0)} ms, after the decorations`);
}
