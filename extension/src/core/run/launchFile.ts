import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunSettings } from './launch';
import { explainNothingRecorded } from './nothingRecorded';
import type { NothingRecorded } from './nothingRecorded';
import { bestSnapshot, readRun, recordExit } from './runFolder';
import type { Run, SamplesMode } from './runFolder';

/** The launcher's side of launch.json at the start; recordEnd adds the end. */
export interface LaunchRecord {
  command: string[];
  /** The interpreter the editor resolved; the CLI runs its argv as given and records none. */
  interpreter?: object;
  cwd: string;
  launcher: 'cli' | 'vscode';
  settings: RunSettings;
}

/** Creates the run folder and its launch.json, "running" until recordEnd. */
export function writeLaunch(runDir: string, l: LaunchRecord, now = new Date()): void {
  mkdirSync(runDir, { recursive: true });
  const { command, interpreter, cwd, launcher, settings } = l;
  const launch = {
    command,
    ...(interpreter ? { interpreter } : {}),
    cwd,
    started: now.toISOString(),
    launcher,
    settings,
    status: 'running',
  };
  writeFileSync(join(runDir, 'launch.json'), JSON.stringify(launch, null, 1));
}

export interface RunEnd {
  code: number | null;
  signal: string | null;
  /** false: the command never started (it could not be spawned), so "nothing recorded" is not the news. */
  started?: boolean;
}

export interface EndedRun {
  /** The run folder as read before its end was recorded. */
  run: Run;
  /** Highest max_allocated among the samples read (none with samples 'none'). */
  peak: number;
  /** Why no process wrote a snapshot; also written into launch.json for the editor. */
  nothing?: { reason: NothingRecorded; sentence: string };
}

/** Reads the finished run, records its exit (and why nothing was recorded) in launch.json and meta.json. Throws on an unreadable folder. */
export function recordEnd(runDir: string, end: RunEnd, samples: SamplesMode = 'none'): EndedRun {
  const run = readRun(runDir, { samples });
  const recorded = run.processes.some((p) => bestSnapshot(p));
  const nothing = end.started === false || recorded ? undefined : explainNothingRecorded(runDir);
  const launch = nothing && run.launch ? { ...run.launch, nothing_recorded: nothing.reason } : run.launch;
  recordExit({ ...run, launch }, { code: end.code, signal: end.signal, endedAt: new Date().toISOString() });
  let peak = 0;
  for (const p of run.processes) for (const s of p.samples) peak = Math.max(peak, s.max_allocated);
  return { run, peak, ...(nothing ? { nothing } : {}) };
}
