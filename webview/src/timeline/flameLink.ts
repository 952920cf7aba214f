import type { TimelineApp } from './app';

/** Asks the host for the flame graph at the instant the page shows (its button, and F on the plot). */
export function showFlame(app: TimelineApp): void {
  app.post({ type: 'showFlame', session: app.init?.session ?? -1, index: app.init?.instant.index ?? -1 });
}
