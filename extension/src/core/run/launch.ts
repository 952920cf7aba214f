import { randomBytes } from 'node:crypto';
import { basename, delimiter, join } from 'node:path';

/** What a run records and how the allocator is configured, from settings or CLI flags. */
export interface RunSettings {
  stacks?: 'python' | 'all';
  context?: 'state' | 'alloc' | 'all';
  maxEntries?: number;
  sampleMs?: number;
  /** "Simulate a GPU of N GiB": a per-process memory fraction for every device. */
  capGib?: number;
  /** Memory by module (the agent's module scopes): off unless asked, for what they cost (docs/agent.md). */
  modules?: 'off' | 'on' | 'auto';
  /** window (the default): stacks only in recording windows; full: every event (docs/running.md). */
  record?: 'window' | 'full';
  /** Allocator knobs, merged into PYTORCH_CUDA_ALLOC_CONF (e.g. { expandable_segments: 'True' }). */
  allocConf?: Record<string, string>;
}

export interface RunPlan {
  runId: string;
  runsDir: string;
  /** The main folder; ranks write <runDir>-rank<r> beside it, other CUDA processes <runDir>-pid<p>. */
  runDir: string;
  env: Record<string, string>;
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Parses "k=v,k2=v2" (or "k:v") into allocator knobs. */
export function parseAllocConf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z_]+)\s*[=:]\s*(.+)$/.exec(part);
    if (!m) throw new RangeError(`allocator setting "${part}" is not key=value`);
    out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/**
 * Merges knobs into an existing PYTORCH_CUDA_ALLOC_CONF. A knob given here replaces the same key;
 * the user's other keys are kept in their order.
 */
export function mergeAllocConf(existing: string | undefined, knobs: Record<string, string>): string {
  const entries: [string, string][] = [];
  for (const part of (existing ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const i = part.indexOf(':');
    entries.push(i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)]);
  }
  for (const [k, v] of Object.entries(knobs)) {
    const at = entries.findIndex(([key]) => key === k);
    if (at >= 0) entries[at] = [k, v];
    else entries.push([k, v]);
  }
  return entries.map(([k, v]) => (v ? `${k}:${v}` : k)).join(',');
}

/** The environment that arms the agent in every Python process of the run. */
export function planRun(opts: {
  script: string;
  runsDir: string;
  agentDir: string;
  socket?: string;
  token?: string;
  settings?: RunSettings;
  baseEnv?: NodeJS.ProcessEnv;
  now?: Date;
}): RunPlan {
  const base = opts.baseEnv ?? process.env;
  const name =
    basename(opts.script)
      .replace(/\.py$/, '')
      .replace(/[^\w.-]+/g, '_') || 'run';
  const runId = `${stamp(opts.now ?? new Date())}-${name}-${randomBytes(2).toString('hex')}`;
  const s = opts.settings ?? {};
  const env: Record<string, string> = {
    HEADROOM_AGENT: '1',
    HEADROOM_RUNS_DIR: opts.runsDir,
    HEADROOM_RUN_ID: runId,
    PYTHONPATH: base.PYTHONPATH ? `${opts.agentDir}${delimiter}${base.PYTHONPATH}` : opts.agentDir,
  };
  if (opts.socket) env.HEADROOM_SOCKET = opts.socket;
  if (opts.token) env.HEADROOM_TOKEN = opts.token;
  if (s.stacks) env.HEADROOM_STACKS = s.stacks;
  if (s.context) env.HEADROOM_CONTEXT = s.context;
  if (s.maxEntries) env.HEADROOM_MAX_ENTRIES = String(s.maxEntries);
  if (s.sampleMs) env.HEADROOM_SAMPLE_MS = String(s.sampleMs);
  if (s.modules) env.HEADROOM_MODULES = s.modules;
  if (s.record) env.HEADROOM_RECORD = s.record;
  if (s.capGib) env.HEADROOM_CAP_GIB = String(s.capGib);
  if (s.allocConf && Object.keys(s.allocConf).length) {
    const key =
      base.PYTORCH_ALLOC_CONF !== undefined && base.PYTORCH_CUDA_ALLOC_CONF === undefined
        ? 'PYTORCH_ALLOC_CONF'
        : 'PYTORCH_CUDA_ALLOC_CONF';
    env[key] = mergeAllocConf(base[key], s.allocConf);
  }
  return { runId, runsDir: opts.runsDir, runDir: join(opts.runsDir, runId), env };
}
