import { spawn } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import { constants } from 'node:os';
import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import { buildReport } from '../core/report';
import { parseAllocConf } from '../core/run/launch';
import type { RunSettings } from '../core/run/launch';
import { LiveRun } from '../core/run/liveRun';
import { processLabel } from '../core/run/processes';
import { windowNote } from '../core/run/recordingMode';
import { bestSnapshot } from '../core/run/runFolder';
import type { ProcessRun } from '../core/run/runFolder';
import { chooseProbe } from '../core/gpu/probe';
import { loadAddon, runSmi } from '../core/gpu/sources';
import type { GpuProbe } from '../core/gpu/types';
import { statusText } from '../core/run/status';
import { plain, plainLines } from '../shared/text';
import { agentDir } from './agentDir';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';
import { renderReport } from './render';

export const RUN_USAGE = `usage: headroom run [OPTIONS] -- COMMAND [ARGS...]

  Runs COMMAND (python train.py …, or torchrun …) with Headroom's agent in every Python process:
  allocator recording from the first CUDA use, live figures, and snapshots at exit, at OOM and at
  new peaks, in DIR/<timestamp>-<script>/ (default .headroom/runs); torchrun ranks and spawned ranks
  write <run>-rank<r>/ beside it, other processes that hold CUDA memory <run>-pid<p>/. Prints a live
  status line, then the analysis of the run. Exits with the workload's own exit code. Headroom
  installs no signal handler: SIGTERM ends the workload as it would without Headroom, and the run
  keeps what was written before it. Without Node: python -m torch_headroom (headroom wheel).

  --out DIR            where runs go (default .headroom/runs)
  --record window|full window (default): Python stacks only while the peak rises (from the first
                       CUDA use until it stops rising, again when it rises or memory nears the
                       device's total); PyTorch's exact peaks and the live figures throughout.
                       full: every event, at the recorder's own cost (~1.2x on a launch-bound loop)
  --stacks python|all  all adds C++ frames (slower, larger snapshots; default python)
  --context alloc|all|state  what each block keeps of its history (default alloc; all breaks
                       non-reentrant checkpointing on torch 2.11)
  --modules off|on|auto  which nn.Module's forward or backward made each block (torch >= 2.10;
                       \`headroom analyze --by module\`); ~20 us a module call, so off by default;
                       auto: on while a window records
  --max-entries N      the recorder's ring of trace events (default 2M; 400k with --stacks all)
  --sample-ms N        live figures every N ms (default 100)
  --cap-gib N          a per-process memory cap: how the run fares on an N GiB GPU
  --alloc-conf K:V,... allocator settings merged into PYTORCH_CUDA_ALLOC_CONF for this run

  Examples: headroom run -- python train.py --epochs 1
            headroom run --alloc-conf expandable_segments:True -- torchrun --nproc-per-node 2 train.py
            headroom run --cap-gib 24 --record full -- python finetune.py`;

function settingsFrom(p: ReturnType<typeof parseArgs>): RunSettings {
  const stacks = flag(p, 'stacks');
  if (stacks && stacks !== 'python' && stacks !== 'all') throw new UsageError('--stacks is python or all');
  const context = flag(p, 'context');
  if (context && !['alloc', 'all', 'state'].includes(context)) throw new UsageError('--context is alloc, all or state');
  const modules = flag(p, 'modules');
  if (modules && !['off', 'on', 'auto'].includes(modules)) throw new UsageError('--modules is off, on or auto');
  const record = flag(p, 'record');
  if (record && record !== 'window' && record !== 'full') throw new UsageError('--record is window or full');
  const cap = flag(p, 'cap-gib');
  const capGib = cap === undefined ? undefined : Number(cap);
  if (capGib !== undefined && !(capGib > 0)) throw new UsageError(`--cap-gib expects a positive number of GiB, got "${cap}"`);
  let allocConf: Record<string, string> | undefined;
  try {
    allocConf = flag(p, 'alloc-conf') ? parseAllocConf(flag(p, 'alloc-conf')!) : undefined;
  } catch (e) {
    throw new UsageError(`--alloc-conf: ${(e as Error).message}`);
  }
  return {
    ...(stacks ? { stacks: stacks as 'python' | 'all' } : {}),
    ...(context ? { context: context as 'alloc' } : {}),
    ...(intFlag(p, 'max-entries') ? { maxEntries: intFlag(p, 'max-entries')! } : {}),
    ...(intFlag(p, 'sample-ms') ? { sampleMs: intFlag(p, 'sample-ms')! } : {}),
    ...(capGib ? { capGib } : {}),
    ...(modules ? { modules: modules as 'on' } : {}),
    ...(record ? { record: record as 'full' } : {}),
    ...(allocConf ? { allocConf } : {}),
  };
}

export async function runCommand(argv: readonly string[], io: Io): Promise<number> {
  const sep = argv.indexOf('--');
  if (sep < 0 || sep === argv.length - 1) throw new UsageError(RUN_USAGE);
  const p = parseArgs(argv.slice(0, sep), {
    out: { value: true },
    stacks: { value: true },
    context: { value: true },
    'max-entries': { value: true },
    'sample-ms': { value: true },
    'cap-gib': { value: true },
    'alloc-conf': { value: true },
    modules: { value: true },
    record: { value: true },
  });
  if (p.positional.length) throw new UsageError(`unexpected ${p.positional[0]} before --\n${RUN_USAGE}`);
  const command = argv.slice(sep + 1);
  const settings = settingsFrom(p);
  const runsDir = resolve(flag(p, 'out') ?? join('.headroom', 'runs'));
  const script = command.find((a) => a.endsWith('.py')) ?? basename(command[0]!);
  // At an OOM, who else held the GPU (NVML, else nvidia-smi): chosen once, at the first OOM.
  let probe: Promise<GpuProbe> | undefined;
  const live = await LiveRun.start({
    script,
    runsDir,
    agentDir: agentDir(),
    settings,
    launch: { command, cwd: process.cwd(), launcher: 'cli' },
    gpus: () => (probe ??= chooseProbe(() => loadAddon(join(__dirname, '..')), runSmi)),
    on: {
      log: (_s, m) => {
        if (m.level !== 'info') io.err(`headroom: ${plain(m.message)}\n`);
      },
    },
    historyCap: 0, // no timeline in a terminal
  });
  const plan = live.plan;
  io.err(`headroom: recording into ${plain(plan.runDir)}\n`);

  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  const tick = setInterval(() => {
    const st = live.status();
    if (!st) return;
    const text = `headroom ▸ ${statusText(st)}${st.warnings.length ? ` ⚠ ${plain(st.warnings[0]!)}` : ''}`;
    if (tty) process.stderr.write(`\r\x1b[K${text}`);
    else if (Date.now() - lastLine >= 10_000) {
      lastLine = Date.now();
      io.err(`${text}\n`);
    }
  }, 1000);

  const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', env: { ...process.env, ...plan.env } });
  // Ctrl-C reaches the child from the terminal; SIGTERM sent to us is passed on. Either way we
  // wait for the workload to end.
  const forward = (sig: NodeJS.Signals) => () => {
    if (sig !== 'SIGINT' || !tty) child.kill(sig);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let started = true;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('error', (e) => {
      started = false;
      io.err(`headroom: cannot start ${plain(command[0]!)}: ${plain(e.message)}\n`);
      res({ code: 127, signal: null });
    });
    child.once('exit', (code, signal) => res({ code, signal }));
  });
  process.off('SIGINT', onInt);
  process.off('SIGTERM', onTerm);
  clearInterval(tick);
  if (tty) process.stderr.write('\r\x1b[K');
  try {
    // Nothing recorded: the reason goes to the terminal (recordEnd writes it into launch.json for the editor).
    const { run, nothing } = await live.finish({ code: exit.code, signal: exit.signal, started }, 'all');
    if (exit.signal)
      io.err(
        `headroom: the workload ended on ${exit.signal}: no snapshot was taken at the signal (Headroom never delays one); the analysis uses the last snapshot written before it\n`,
      );
    if (nothing) io.err(`${nothing.sentence}\n`);
    else if (started) await report(run.processes, io);
  } catch (e) {
    io.err(`headroom: the run folder could not be analyzed: ${plain((e as Error).message)}\n`);
  }
  if (exit.signal) {
    process.kill(process.pid, exit.signal);
    return 128 + (constants.signals[exit.signal] ?? 0);
  }
  return exit.code ?? 1;
}

async function report(processes: ProcessRun[], io: Io): Promise<void> {
  const withSnapshots = processes.filter((p) => bestSnapshot(p));
  for (const p of withSnapshots) {
    const snap = bestSnapshot(p)!;
    const s = await loadForCli(snap.path);
    const d = defaultDevice(s);
    if (d === undefined) continue;
    const { report: r } = buildReport(s, analyzeDevice(s, d, undefined, p.backward), 'peak', 0);
    const label = processes.length > 1 ? processLabel(p) : '';
    const note = windowNote(p, d, r.peak.requested_bytes);
    io.err(
      plainLines(`\n${label ? `${label}: ` : ''}${snap.kind} snapshot\n${renderReport(r, snap.path, 10)}${note ? `\n${note}\n` : ''}`),
    );
  }
}
