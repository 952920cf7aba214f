import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { formatBytes } from '../../shared/format';
import { runBeside } from './runFolder';
import type { ProcessRun, Run } from './runFolder';

/** How a process recorded: every event (full), or stacks in windows (the default since issue 20). */
export interface RecordingMode {
  mode: 'window' | 'full';
  /** Windows opened so far, and whether the last one is still open. */
  windows: number;
  open: boolean;
}

export function recordingMode(p: Pick<ProcessRun, 'meta' | 'events'>): RecordingMode {
  const rec = p.meta?.recording as Record<string, unknown> | undefined;
  let windows = 0;
  let open = false;
  for (const e of p.events) {
    if (e.event === 'window_open') {
      windows++;
      open = true;
    } else if (e.event === 'window_close') open = false;
  }
  // Runs from before the modes (no `mode` in meta, no window events) recorded every event.
  const mode = rec?.mode === 'window' || windows > 0 ? 'window' : 'full';
  return { mode, windows, open };
}

/** The mode in a few words, for the status bar and the timeline's title. */
export function modeText(m: RecordingMode): string {
  if (m.mode === 'full') return 'stacks: every event (full)';
  return m.open ? `stacks: recording (window ${m.windows})` : `stacks: off between windows (${m.windows} so far)`;
}

/**
 * What the report of a windowed run must say: the mode, and whether the run's own peak (PyTorch's
 * exact requested_bytes peak, from the samples) lies outside the snapshot's trace.
 */
export function windowNote(p: Pick<ProcessRun, 'meta' | 'events' | 'samples'>, device: number, snapshotPeak: number): string | undefined {
  const m = recordingMode(p);
  if (m.mode !== 'window') return undefined;
  let runPeak = 0;
  for (const s of p.samples) if (s.device === device) runPeak = Math.max(runPeak, s.max_requested ?? 0);
  const head = `Recorded in windows (${m.windows}): stacks from the first CUDA use until the peak stopped rising, and again when it rose. Events between windows are not in the trace; \`headroom run --record full\` records them all.`;
  if (runPeak > snapshotPeak)
    return `${head}\nThe run's peak, ${formatBytes(runPeak)} (PyTorch's requested_bytes peak), is above this snapshot's ${formatBytes(snapshotPeak)}: it happened between windows and did not come back while one was open.`;
  return head;
}

/** windowNote for a snapshot file that sits in a run's process folder; undefined for any other file. `run`: that run, when already read. */
export function windowNoteBeside(
  snapshotPath: string,
  device: number,
  snapshotPeak: number,
  run: Run | undefined = runBeside(snapshotPath),
): string | undefined {
  const dir = dirname(resolve(snapshotPath));
  if (!existsSync(join(dir, 'meta.json'))) return undefined;
  const p = run?.processes.find((x) => resolve(x.dir) === dir);
  return p && windowNote(p, device, snapshotPeak);
}
