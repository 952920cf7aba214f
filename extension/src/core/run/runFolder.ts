import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseFromAgent } from './protocol';
import type { AgentEvent, Sample } from './protocol';

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

/** One process's folder: <run> or <run>-rank<r>. */
export interface ProcessRun {
  dir: string;
  rank: number | null;
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

function readJson(p: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A stored line: samples are stored without their "type". Torn lines (a killed process) give undefined. */
function parseRecord(line: string): ReturnType<typeof parseFromAgent> {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof o === 'object' && o !== null && !('type' in o) && 'allocated' in o) (o as Record<string, unknown>).type = 'sample';
  return parseFromAgent(JSON.stringify(o));
}

function readLines<T>(p: string, keep: (m: ReturnType<typeof parseFromAgent>) => T | undefined): T[] {
  if (!existsSync(p)) return [];
  const out: T[] = [];
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    if (!line) continue;
    const v = keep(parseRecord(line));
    if (v !== undefined) out.push(v);
  }
  return out;
}

function readProcess(dir: string): ProcessRun {
  const meta = readJson(join(dir, 'meta.json'));
  const events = readLines(join(dir, 'events.jsonl'), (m) => (m?.type === 'event' ? m : undefined));
  const snapshots: RunSnapshot[] = readdirSync(dir)
    .filter((f) => /^snapshot-.*\.pickle$/.test(f))
    .map((f) => {
      const st = statSync(join(dir, f));
      return { kind: /^snapshot-([a-z]+)/.exec(f)![1]!, path: join(dir, f), bytes: st.size, mtimeMs: st.mtimeMs };
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  const backward = events
    .filter((e) => e.event === 'backward' && typeof e.start === 'number' && typeof e.end === 'number')
    .map((e) => ({ startUs: e.start as number, endUs: e.end as number, file: String(e.file ?? ''), line: Number(e.line ?? 0) }));
  const rank = /-rank(\d+)(?:-restart\d+)?$/.exec(basename(dir));
  return {
    dir,
    rank: rank ? Number(rank[1]) : typeof meta?.rank === 'number' ? meta.rank : null,
    meta,
    samples: readLines(join(dir, 'samples.jsonl'), (m) => (m?.type === 'sample' ? m : undefined)),
    events,
    snapshots,
    backward,
  };
}

/** Reads a run, given its folder or any of its rank folders (also a copy from a cluster). */
export function readRun(dir: string): Run {
  const main = dir.replace(/-rank\d+(?:-restart\d+)?$/, '');
  const parent = dirname(main);
  const name = basename(main);
  const dirs = existsSync(parent)
    ? readdirSync(parent)
        .filter((f) => f === name || (f.startsWith(`${name}-rank`) && /-rank\d+(?:-restart\d+)?$/.test(f)))
        .map((f) => join(parent, f))
        .filter((p) => statSync(p).isDirectory())
    : [];
  if (!dirs.length) throw new Error(`${dir} is not a Headroom run folder`);
  const processes = dirs
    .map(readProcess)
    .filter((p) => p.meta || p.samples.length || p.snapshots.length)
    .sort((a, b) => (a.rank ?? -1) - (b.rank ?? -1));
  return { dir: main, launch: existsSync(join(main, 'launch.json')) ? readJson(join(main, 'launch.json')) : undefined, processes };
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
  write(join(run.dir, 'launch.json'), { ...(run.launch ?? {}), exit_code: exit.code, signal: exit.signal, ended: exit.endedAt, status: 'ended' });
  for (const p of run.processes) {
    if (!p.meta) continue;
    write(join(p.dir, 'meta.json'), { ...p.meta, launcher_exit_code: exit.code, launcher_signal: exit.signal, ...(run.processes.length === 1 ? { exit_code: exit.code } : {}) });
  }
}
