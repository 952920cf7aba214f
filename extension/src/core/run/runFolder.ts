import { closeSync, existsSync, readdirSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { assertInside, openRegularSync, parseObject, readSideText, SIDE_LIMITS } from '../safeFile';
import { SnapshotError } from '../errors';
import { folderIdentity, isProcessFolder, runDirOf } from './processes';
import type { AgentEvent, Sample } from './protocol';
import { MAX_PROCESSES, rankSamples, readLines, tailSamples } from './runLines';
import type { SeenFiles } from './runLines';

export type SnapshotKind = 'oom' | 'peak' | 'exit' | 'sigterm' | 'manual';

export interface RunSnapshot {
  kind: SnapshotKind | string;
  path: string;
  bytes: number;
  mtimeMs: number;
}

export interface BackwardWindow {
  startUs: number;
  endUs: number;
  file: string;
  line: number;
}

/** One process's folder: <run>, <run>-rank<r> or <run>-pid<p> (see processes.ts). */
export interface ProcessRun {
  dir: string;
  rank: number | null;
  /** Set for a process known by its pid alone (a worker without a rank). */
  pid: number | null;
  meta: Record<string, unknown> | undefined;
  samples: Sample[];
  events: AgentEvent[];
  snapshots: RunSnapshot[];
  backward: BackwardWindow[];
}

export interface Run {
  dir: string;
  launch: Record<string, unknown> | undefined;
  processes: ProcessRun[];
}

/**
 * Side files come from whoever made the folder: each must be a regular file inside its folder (no
 * link out of it, no FIFO or device) and is read with a size cap. One that is missing, refused or
 * malformed reads as absent: the rest of the run is still worth showing.
 */
export function readJson(p: string): Record<string, unknown> | undefined {
  try {
    return parseObject(readSideText(p, { root: dirname(p), maxBytes: SIDE_LIMITS.json }));
  } catch {
    return undefined;
  }
}

/** A snapshot in a run folder: a regular file inside it, else it is not listed. */
function snapshotStat(dir: string, f: string): { bytes: number; mtimeMs: number } | undefined {
  const p = join(dir, f);
  try {
    assertInside(p, dir);
    const { fd, size, mtimeMs } = openRegularSync(p);
    closeSync(fd);
    return { bytes: size, mtimeMs };
  } catch {
    return undefined;
  }
}

/** 'ranks': the few samples `headroom ranks` reads (runLines.ts's rankSamples). */
export type SamplesMode = 'all' | 'tail' | 'none' | 'ranks';

function readProcess(dir: string, samples: SamplesMode, seen: SeenFiles): ProcessRun {
  const meta = readJson(join(dir, 'meta.json'));
  const events = readLines(join(dir, 'events.jsonl'), (m) => (m?.type === 'event' ? m : undefined), seen);
  const snapshots: RunSnapshot[] = readdirSync(dir)
    .filter((f) => /^snapshot-.*\.pickle$/.test(f))
    .flatMap((f) => {
      const st = snapshotStat(dir, f);
      // `snapshot-1.pickle` (no kind) is listed as `other`, not a crash.
      return st ? [{ kind: /^snapshot-([a-z]+)/.exec(f)?.[1] ?? 'other', path: join(dir, f), ...st }] : [];
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  const backward = events
    .filter((e) => e.event === 'backward' && typeof e.start === 'number' && typeof e.end === 'number')
    .map((e) => ({ startUs: e.start as number, endUs: e.end as number, file: String(e.file ?? ''), line: Number(e.line ?? 0) }));
  const named = folderIdentity(basename(dir));
  const rank = named.rank ?? (typeof meta?.rank === 'number' ? meta.rank : null);
  return {
    dir,
    rank,
    pid: rank === null ? named.pid : null,
    meta,
    samples:
      samples === 'all'
        ? readLines(join(dir, 'samples.jsonl'), (m) => (m?.type === 'sample' ? m : undefined), seen)
        : samples === 'tail'
          ? tailSamples(join(dir, 'samples.jsonl'))
          : [],
    events,
    snapshots,
    backward,
  };
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false; // a dangling link
  }
};

/**
 * Reads a run, given its folder or any of its process folders (also a copy from a cluster).
 * The samples are the largest file by far (a day at 100 ms is ~200 MB): the editor, on its main
 * thread, reads none (`samples: 'none'`) or only the last ones (`'tail'`, whose max_allocated is
 * the run's peak: the agent never resets it).
 */
export function readRun(dir: string, opts: { samples?: SamplesMode } = {}): Run {
  const main = runDirOf(dir);
  const parent = dirname(main);
  const name = basename(main);
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    // an unreadable or missing parent: no folders
  }
  const dirs = names
    .filter((f) => isProcessFolder(f, name))
    .map((f) => join(parent, f))
    .filter(isDir);
  if (!dirs.length) throw new SnapshotError('io', `${dir} is not a Headroom run folder`);
  if (dirs.length > MAX_PROCESSES)
    throw new SnapshotError('limit', `${main} has ${dirs.length} process folders, over the ${MAX_PROCESSES} a run may have`);
  const seen: SeenFiles = new Map();
  // The launched process first, then ranks in order, then other processes by pid.
  const order = (p: ProcessRun) => (p.dir === main ? -1 : p.rank !== null ? p.rank : 1e9 + (p.pid ?? 0));
  const mode = opts.samples ?? 'all';
  const processes = dirs
    .map((d) => readProcess(d, mode === 'ranks' ? 'none' : mode, seen))
    .filter((p) => p.meta || p.samples.length || p.snapshots.length || existsSync(join(p.dir, 'samples.jsonl')))
    .sort((a, b) => order(a) - order(b));
  if (mode === 'ranks') {
    // The first OOM of any rank, known once every rank's events are read, picks a sample of each.
    let cut: number | null = null;
    for (const p of processes) for (const e of p.events) if (p.rank !== null && e.event === 'oom' && (cut === null || e.t < cut)) cut = e.t;
    for (const p of processes) p.samples = rankSamples(join(p.dir, 'samples.jsonl'), cut, seen);
  }
  return { dir: main, launch: existsSync(join(main, 'launch.json')) ? readJson(join(main, 'launch.json')) : undefined, processes };
}

/**
 * The run a snapshot file sits in (its folder is a process folder: it has meta.json or a rank's
 * name), with the samples' tail only (max_requested is a running peak, and an OOM ends a run soon
 * after); undefined for any other file or a folder that does not read as a run.
 */
export function runBeside(snapshotPath: string): Run | undefined {
  const dir = dirname(resolve(snapshotPath));
  if (!existsSync(join(dir, 'meta.json')) && folderIdentity(basename(dir)).rank === null) return undefined;
  try {
    return readRun(dir, { samples: 'tail' });
  } catch {
    return undefined;
  }
}

/**
 * The snapshot to analyze for a process: an OOM's if there was one, else the peak snapshot (it
 * keeps the true peak's stacks when the ring buffer later wraps), else the last one.
 */
export function bestSnapshot(p: ProcessRun): RunSnapshot | undefined {
  const last = (kind: string) => [...p.snapshots].reverse().find((s) => s.kind === kind);
  return last('oom') ?? last('peak') ?? p.snapshots.at(-1);
}

/** Records the launcher's view of the end (exit code, signal) in launch.json and in each meta.json. */
export function recordExit(run: Run, exit: { code: number | null; signal: string | null; endedAt: string }): void {
  const write = (p: string, obj: Record<string, unknown>) => {
    const tmp = `${p}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(obj, null, 1));
    renameSync(tmp, p);
  };
  // No handler of Headroom's runs at a signal (the agent installs none): the snapshots are those written before it.
  const note = exit.signal ? { note: `ended on ${exit.signal}: no snapshot at the signal (Headroom never delays one)` } : {};
  write(join(run.dir, 'launch.json'), {
    ...(run.launch ?? {}),
    exit_code: exit.code,
    signal: exit.signal,
    ended: exit.endedAt,
    status: 'ended',
    ...note,
  });
  for (const p of run.processes) {
    if (!p.meta) continue;
    write(join(p.dir, 'meta.json'), {
      ...p.meta,
      launcher_exit_code: exit.code,
      launcher_signal: exit.signal,
      ...(run.processes.length === 1 ? { exit_code: exit.code } : {}),
    });
  }
}
