import { analyzeDevice } from '../core/analysis/analyze';
import type { DeviceAnalysis } from '../core/analysis/deviceAnalysis';
import { describeLeak, detectLeaks } from '../core/diagnose/leaks';
import { explainSnapshotOoms } from '../core/diagnose/explainSnapshot';
import { isSnapshotFile } from '../core/logFile';
import { formatBytes } from '../shared/format';
import { plain, plainLines } from '../shared/text';
import { flag, intFlag, parseArgs, sizeFlag, UsageError } from './args';
import { explainOomFile } from './explainOom';
import type { Io } from './io';
import { loadForCli } from './load';

export const CHECK_USAGE = `usage: headroom check SNAPSHOT|RUN [--max-peak SIZE] [--max-reserved SIZE] [--device N]
                      [--explain-oom [--json]] [--no-leak [--leak-min SIZE]]
       headroom check LOG|- --explain-oom [--json] [--run RUN]

  Exits 1 with a one-line reason when a device's peak (requested bytes) or peak reserved memory
  is over budget, 0 otherwise. SIZE needs a unit: 20GiB, 512MiB, 1.5G (binary), 20GB (decimal),
  4096B (bytes).
  --explain-oom prints the OOM doctor's diagnosis of every OOM in the snapshot, or of every CUDA
  OOM message in a text file (a log, a pasted message; - reads standard input), in order:
  fragmentation, cap, non-pytorch, demand or unknown, with the figures read and the remedies.
  --json prints {"ooms": [{"class", "figures", "derived", "reason", "remedies": [{"id", "title",
  "change", "effect"}]}]} instead. --run RUN: a Headroom run folder whose snapshot of the same OOM
  (same device, request and free memory) becomes the evidence for the verdict, the message's
  figures shown beside it; a log inside a run folder uses its run without --run.
  --no-leak exits 1 when live memory grows steadily from iteration to iteration, by any amount:
  measured at the run's step boundaries (optimizer steps, else backward passes, else the outermost
  loop) past a warm-up, and held by tensors created at the same lines in most iterations and never
  freed; it names those lines. --leak-min SIZE tolerates a steady growth below SIZE per iteration.
  Examples: headroom check snapshot.pickle --max-peak 20GiB          # a CI memory budget
            headroom check train.log --explain-oom                    # why the job ran out
            pbpaste | headroom check - --explain-oom                  # a pasted message`;

export async function checkCommand(argv: readonly string[], raw: Io): Promise<number> {
  // Paths, frame names and OOM messages are data: escaped where they are quoted, and every line
  // written goes through plainLines as a net (check has no --json to keep byte for byte).
  const io: Io = { out: (t) => raw.out(plainLines(t)), err: (t) => raw.err(plainLines(t)) };
  const p = parseArgs(argv, {
    'max-peak': { value: true },
    'max-reserved': { value: true },
    device: { value: true },
    'explain-oom': {},
    json: {},
    run: { value: true },
    'no-leak': {},
    'leak-min': { value: true },
  });
  if (p.positional.length !== 1) throw new UsageError(CHECK_USAGE);
  const maxPeak = sizeFlag(p, 'max-peak');
  const maxReserved = sizeFlag(p, 'max-reserved');
  const explain = flag(p, 'explain-oom') !== undefined;
  const noLeak = flag(p, 'no-leak') !== undefined;
  const leakMin = sizeFlag(p, 'leak-min');
  if (leakMin !== undefined && !noLeak) throw new UsageError('--leak-min goes with --no-leak\n' + CHECK_USAGE);
  if (maxPeak === undefined && maxReserved === undefined && !explain && !noLeak)
    throw new UsageError('check needs --max-peak, --max-reserved, --no-leak or --explain-oom\n' + CHECK_USAGE);
  const json = flag(p, 'json') !== undefined;
  const run = flag(p, 'run');
  if ((json || run !== undefined) && !explain) throw new UsageError(`--${json ? 'json' : 'run'} goes with --explain-oom\n` + CHECK_USAGE);
  const path = p.positional[0]!;
  // A text file (a log, a pasted message) is read for OOM messages, not as a snapshot.
  if (explain && (path === '-' || !isSnapshotFile(path))) {
    if (maxPeak !== undefined || maxReserved !== undefined || noLeak)
      throw new UsageError('a text file has only OOM messages to explain: budgets and --no-leak need a snapshot\n' + CHECK_USAGE);
    return explainOomFile(path, { json, ...(run !== undefined ? { run } : {}) }, json ? raw : io);
  }
  if (run !== undefined) throw new UsageError('--run goes with a log or a pasted message; a snapshot is its own evidence\n' + CHECK_USAGE);
  if (json && (maxPeak !== undefined || maxReserved !== undefined || noLeak))
    throw new UsageError('--json prints the OOM doctor alone: drop the budgets and --no-leak\n' + CHECK_USAGE);
  const s = await loadForCli(path);
  // Each device is analyzed once, for the doctor and the budgets alike; kept only for the doctor,
  // so that the budgets over 65,535 devices hold one analysis at a time (issue 39).
  const analyses = new Map<number, DeviceAnalysis>();
  const analysis = (d: number): DeviceAnalysis => {
    let a = analyses.get(d);
    if (!a) a = analyzeDevice(s, d);
    if (explain) analyses.set(d, a);
    return a;
  };
  if (explain) {
    (json ? raw : io).out(explainSnapshotOoms(s, path, analysis, json));
    if (json) return 0;
    if (maxPeak === undefined && maxReserved === undefined && !noLeak) return 0;
  }
  const only = intFlag(p, 'device');
  if (only !== undefined && !s.devices.includes(only))
    throw new UsageError(`device ${only} is not in ${plain(path)} (it has: ${s.devices.join(', ') || 'none'})`);
  const devices = only !== undefined ? [only] : s.devices;
  if (devices.length === 0) throw new UsageError(`${plain(path)} holds no device with a trace or segments: nothing to check`);
  const within: string[] = [];
  for (const d of devices) {
    const a = analysis(d);
    if (noLeak) {
      const leak = leakMin === undefined ? detectLeaks(s, a) : detectLeaks(s, a, { minBytesPerIteration: leakMin });
      if (leak.leaking) {
        io.out(`device ${d}: ${describeLeak(leak).join('\n')}\n`);
        return 1;
      }
      within.push(`device ${d}: ${describeLeak(leak)[0]}`);
    }
    if (maxPeak === undefined && maxReserved === undefined) continue;
    const r = a.replay;
    const peak = r.peak.requestedBytes;
    const reserved = r.reservedPeak.bytes;
    if (maxPeak !== undefined && peak > maxPeak) {
      io.out(
        `over budget: device ${d} peaks at ${formatBytes(peak)} requested (${peak} B) > --max-peak ${formatBytes(maxPeak)} (${maxPeak} B)\n`,
      );
      return 1;
    }
    if (maxReserved !== undefined && reserved > maxReserved) {
      io.out(
        `over budget: device ${d} reserves up to ${formatBytes(reserved)} (${reserved} B) > --max-reserved ${formatBytes(maxReserved)} (${maxReserved} B)\n`,
      );
      return 1;
    }
    within.push(`device ${d} peak ${formatBytes(peak)}, reserved ${formatBytes(reserved)}`);
  }
  io.out(`within budget: ${within.join('; ')}\n`);
  return 0;
}
