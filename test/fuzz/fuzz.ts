// Fuzzes the snapshot engine with mutations of the real fixtures and reports crashes (anything
// but a typed SnapshotError), hangs and worker deaths.
// Usage: npm run fuzz -- [N=100000] [--seed S] [--workers W]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';

const ROOT = resolve(__dirname, '..', '..');
const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const N = Number(args.find((a) => /^\d+$/.test(a) && args[args.indexOf(a) - 1]?.startsWith('--') !== true) ?? 100_000);
const baseSeed = opt('--seed', 1);
const workers = opt('--workers', availableParallelism());
const HANG_MS = 120_000;

const dirs = [join(ROOT, '..', 'shared', 'fixtures', 'snapshots'), join(ROOT, 'test', 'fixtures', 'snapshots')];
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
  const out = join(ROOT, 'out', 'fuzz', 'worker.js');
  buildSync({ entryPoints: [join(__dirname, 'worker.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'warning' });
  return out;
}

async function main(): Promise<void> {
  const workerFile = bundleWorker();
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
      const worker = new Worker(workerFile, { workerData: { seeds, from, to, baseSeed, current }, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
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
          crashes.push({ k, fixture: seeds[k % seeds.length]!.name, seed: (baseSeed + k * 2654435761) | 0, strategy: '?', error: `hang: one case ran over ${HANG_MS / 1000}s` });
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
        crashes.push({ k, fixture: seeds[k % seeds.length]!.name, seed: (baseSeed + k * 2654435761) | 0, strategy: '?', error: `worker died: ${e.stack ?? e}` });
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
  console.log(`\nfuzzed ${N} mutations of ${seeds.length} real snapshots in ${secs.toFixed(0)} s with ${workers} workers (seed ${baseSeed})`);
  console.log(`  parsed and analyzed: ${ok}`);
  console.log(`  typed errors: ${Object.entries(codes).map(([c, n]) => `${c} ${n}`).join(', ')}`);
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
