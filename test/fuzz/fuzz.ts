// Fuzzes the snapshot engine with mutations of the real fixtures and reports crashes (anything
// but a typed SnapshotError), hangs and worker deaths. Modes: `pickle` (in memory), `gz` (a
// .pickle.gz file through the real file reader: the engine behind gunzip, and damaged gzip streams),
// `run` (a real run folder with side files and snapshot mutated, linked out, made FIFOs…, read by
// readRun and the `check --explain-oom` path); `all` interleaves them.
// Usage: npm run fuzz -- [N=100000] [--seed S] [--workers W] [--mode all|pickle|gz|run] [--seconds T]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const N = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1]?.startsWith('--') !== true) ?? 100_000);
const baseSeed = opt('--seed', 1);
const workers = opt('--workers', availableParallelism());
const seconds = opt('--seconds', Infinity);
const modeArg = args.includes('--mode') ? args[args.indexOf('--mode') + 1]! : 'all';
const modes = modeArg === 'all' ? ['pickle', 'gz', 'run'] : [modeArg];
if (!modes.every((m) => ['pickle', 'gz', 'run'].includes(m))) throw new Error(`--mode: all, pickle, gz or run, not ${modeArg}`);
const BASE_RUN = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
const HANG_MS = 120_000;

const dirs = [join(ROOT, 'test', 'fixtures', 'snapshots', 'shared'), join(ROOT, 'test', 'fixtures', 'snapshots')];
const seeds = dirs.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.pickle'))
    .sort()
    .map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(d, f))) })),
);

interface Crash {
  k: number;
  fixture: string;
  seed: number;
  strategy: string;
  error: string;
  bytes?: Uint8Array;
}

/** The worker runs the bundled engine, as the extension does (no transpiler in the hot loop). */
function bundleWorker(): string {
  // A prebuilt worker (a machine without esbuild, such as the GPU host: scripts/gpu-carry.mjs).
  if (process.env.HEADROOM_FUZZ_WORKER) return process.env.HEADROOM_FUZZ_WORKER;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildSync } = require('esbuild') as typeof import('esbuild');
  const out = join(ROOT, 'out', 'fuzz', 'worker.js');
  buildSync({
    entryPoints: [join(__dirname, 'worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    logLevel: 'warning',
  });
  return out;
}

async function main(): Promise<void> {
  const workerFile = bundleWorker();
  const scratch = mkdtempSync(join(tmpdir(), 'headroom-fuzz-'));
  // Set when --seconds runs out: each worker stops after its current case.
  const stop = new Int32Array(new SharedArrayBuffer(4));
  if (Number.isFinite(seconds)) setTimeout(() => Atomics.store(stop, 0, 1), seconds * 1000).unref();
  const t0 = Date.now();
  const crashes: Crash[] = [];
  const codes: Record<string, number> = {};
  let ok = 0;
  let done = 0;
  let lastReport = 0;
  const per = Math.ceil(N / workers);
  /** Runs cases [from, to) in a worker; a hang or a death is recorded and the rest resumes in a new one. */
  const range = (from: number, to: number): Promise<void> =>
    new Promise<void>((res) => {
      if (from >= to) return res();
      const current = new Int32Array(new SharedArrayBuffer(4));
      Atomics.store(current, 0, from);
      const worker = new Worker(workerFile, {
        workerData: { seeds, from, to, baseSeed, current, stop, modes, scratch, baseRun: BASE_RUN },
        resourceLimits: { maxOldGenerationSizeMb: 1024 },
      });
      let last = Date.now();
      let lastCase = from;
      let resumeAt = -1;
      const watchdog = setInterval(() => {
        const k = Atomics.load(current, 0);
        if (k !== lastCase) {
          lastCase = k;
          last = Date.now();
        } else if (Date.now() - last > HANG_MS) {
          // One case ran for HANG_MS without finishing (a busy machine slows everything, so the
          // limit is generous): record it and go on after it.
          crashes.push({
            k,
            fixture: seeds[k % seeds.length]!.name,
            seed: (baseSeed + k * 2654435761) | 0,
            strategy: '?',
            error: `hang: one case ran over ${HANG_MS / 1000}s`,
          });
          resumeAt = k + 1;
          void worker.terminate();
        }
      }, 1000);
      worker.on('message', (m) => {
        if (m.type === 'progress') {
          done += m.done;
          ok += m.ok;
          for (const [c, n] of Object.entries(m.codes as Record<string, number>)) codes[c] = (codes[c] ?? 0) + n;
          if (Date.now() - lastReport > 10_000) {
            lastReport = Date.now();
            console.log(`${done}/${N} (${Math.round(done / ((Date.now() - t0) / 1000))}/s), crashes ${crashes.length}`);
          }
        } else if (m.type === 'crash') crashes.push(m);
      });
      worker.on('error', (e) => {
        const k = Atomics.load(current, 0);
        crashes.push({
          k,
          fixture: seeds[k % seeds.length]!.name,
          seed: (baseSeed + k * 2654435761) | 0,
          strategy: '?',
          error: `worker died: ${e.stack ?? e}`,
        });
        resumeAt = k + 1;
      });
      worker.on('exit', () => {
        clearInterval(watchdog);
        if (resumeAt >= 0) void range(resumeAt, to).then(res);
        else res();
      });
    });
  await Promise.all(Array.from({ length: workers }, (_, w) => range(w * per, Math.min(N, (w + 1) * per))));
  const secs = (Date.now() - t0) / 1000;
  rmSync(scratch, { recursive: true, force: true });
  const hangs = crashes.filter((c) => c.error.startsWith('hang')).length;
  const deaths = crashes.filter((c) => c.error.startsWith('worker died')).length;
  console.log(
    `\nfuzzed ${done} inputs (modes ${modes.join(', ')}; ${seeds.length} real snapshots, run folder ${BASE_RUN.slice(ROOT.length + 1)}) in ${secs.toFixed(0)} s, ${(done / secs).toFixed(0)}/s, with ${workers} workers (seed ${baseSeed})`,
  );
  console.log(`  untyped errors ${crashes.length - hangs - deaths}, crashes (worker deaths) ${deaths}, hangs ${hangs}`);
  console.log(`  parsed and analyzed: ${ok}`);
  console.log(
    `  typed errors: ${Object.entries(codes)
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
  );
  console.log(`  crashes (untyped errors, hangs, worker deaths): ${crashes.length}`);
  if (crashes.length) {
    const dir = join(ROOT, 'test', 'fuzz', 'crashes');
    mkdirSync(dir, { recursive: true });
    for (const c of crashes.slice(0, 20)) {
      console.log(`\n#${c.k} ${c.fixture} seed ${c.seed} (${c.strategy}):\n${c.error.split('\n').slice(0, 6).join('\n')}`);
      if (c.bytes) writeFileSync(join(dir, `crash-${c.k}.pickle`), c.bytes);
    }
    process.exitCode = 1;
  }
}

void main();
