// Hostile run folders for the fuzzer: a real run folder copied, then side files and the snapshot
// mutated, replaced by links (to /dev/zero, out of the folder), FIFOs, folders, huge lines or JSON
// of the wrong types. Deterministic for a seed (FIFOs come from a stock made ahead, see fifos()).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mutate, rng } from './mutate';

export const SIDE = ['samples.jsonl', 'events.jsonl', 'gpu-at-oom.jsonl', 'meta.json', 'launch.json', 'agent.log.jsonl'] as const;
const HOW = ['bytes', 'bytes', 'bytes', 'types', 'types', 'devzero', 'outside', 'fifo', 'dir', 'dangling', 'delete', 'hugeline'] as const;

/** Node cannot make a FIFO: a stock is made with mkfifo(1), one spawn per 500, and renamed into place. */
class Fifos {
  private stock: string[] = [];
  private made = 0;
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }
  take(): string {
    if (!this.stock.length) {
      const names = Array.from({ length: 500 }, () => join(this.dir, `f${this.made++}`));
      execFileSync('mkfifo', names);
      this.stock = names;
    }
    return this.stock.pop()!;
  }
}

const WRONG: unknown[] = [null, true, -1, 0, 1e308, -1e308, 2 ** 53 + 1, 'x', '', '\u001b]0;t\u0007', [], [null], {}, { a: 1 }, 'NaN'];

/** A JSON-lines text with some fields of some lines given values of the wrong type. */
function wrongTypes(text: string, r: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return text
    .split('\n')
    .map((line) => {
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch {
        return line;
      }
      if (r() < 0.3) return JSON.stringify(pick(WRONG));
      const walk = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(walk);
        if (typeof v === 'object' && v !== null)
          return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, r() < 0.2 ? pick(WRONG) : walk(x)]));
        return v;
      };
      return JSON.stringify(walk(o));
    })
    .join('\n');
}

export class RunFolderFuzz {
  private readonly fifos: Fifos;
  private readonly base: Record<string, Uint8Array> = {};
  readonly snapshot: string;

  /** `work`: this worker's own scratch folder; `baseRun`: a real run folder. */
  constructor(
    private readonly work: string,
    private readonly baseRun: string,
  ) {
    this.fifos = new Fifos(join(work, 'fifos'));
    for (const f of readdirSync(baseRun)) this.base[f] = new Uint8Array(readFileSync(join(baseRun, f)));
    this.snapshot = readdirSync(baseRun).find((f) => /^snapshot-.*\.pickle$/.test(f))!;
    mkdirSync(join(work, 'outside'), { recursive: true });
    for (const f of SIDE) writeFileSync(join(work, 'outside', f), this.base[f] ?? '{}\n');
  }

  /** Makes the case's folder and says what was done to it. */
  make(seed: number): { dir: string; strategy: string } {
    const r = rng(seed);
    const dir = join(this.work, 'run');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    for (const [f, bytes] of Object.entries(this.base)) writeFileSync(join(dir, f), bytes);
    const did: string[] = [];
    const targets = [...SIDE, this.snapshot];
    for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
      const f = targets[Math.floor(r() * targets.length)]!;
      const how =
        f === this.snapshot
          ? (['bytes', 'bytes', 'fifo', 'devzero', 'rename'] as const)[Math.floor(r() * 5)]!
          : HOW[Math.floor(r() * HOW.length)]!;
      did.push(`${f}:${how}`);
      const p = join(dir, f);
      const original = this.base[f] ?? new TextEncoder().encode('{"type":"log","message":"m"}\n');
      if (how !== 'rename') rmSync(p, { recursive: true, force: true });
      switch (how) {
        case 'bytes':
          writeFileSync(p, mutate(original, seed + n).bytes);
          break;
        case 'types':
          writeFileSync(p, wrongTypes(new TextDecoder().decode(original), r));
          break;
        case 'devzero':
          symlinkSync('/dev/zero', p);
          break;
        case 'outside':
          symlinkSync(join('..', 'outside', f), p);
          break;
        case 'fifo':
          renameSync(this.fifos.take(), p);
          break;
        case 'dir':
          mkdirSync(p);
          break;
        case 'dangling':
          symlinkSync('gone', p);
          break;
        case 'delete':
          break;
        case 'hugeline': {
          const huge = Buffer.alloc((1 + Math.floor(r() * 2)) << 20, 0x7b); // '{' × 1–2 MiB
          writeFileSync(p, Buffer.concat([huge, Buffer.from('\n'), original, huge]));
          break;
        }
        case 'rename':
          if (existsSync(p)) renameSync(p, join(dir, 'snapshot-1.pickle'));
          break;
      }
    }
    return { dir, strategy: did.join(',') };
  }
}
