import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { CostFamily } from './family';

// Issue 39, the snapshot readers: an autograd-node pattern that backtracked on a long C++ name,
// stacks deduplicated through a hash an attacker can collide, one huge frame list shared by many
// entries, and bignums whose decoding the pickle work budget did not count. The inputs are written
// by gen_readers.py (stdlib pickle and gzip), our own generator.

function generate(kind: string, dir: string, n: number): string {
  const file = join(dir, `${kind}.pickle.gz`);
  const r = spawnSync('python3', [join(__dirname, 'gen_readers.py'), kind, String(n), file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gen_readers.py ${kind} ${n}: ${r.stderr || r.error}`);
  return file;
}

/** `analyze` reads the snapshot and runs every analysis; `check` the reader and the replay. */
const family = (name: string, kind: string, unit: string, small: number, full: number, check = false): CostFamily => ({
  name,
  unit,
  make(dir, n) {
    const file = generate(kind, dir, n);
    return { argv: check ? ['check', file, '--max-peak', '1GiB'] : ['analyze', file] };
  },
  small,
  full,
});

export const families: CostFamily[] = [
  // Cubic backtracking before: 4× the name cost 64× the time.
  family('backward-node-name', 'node-name', 'characters of a "BackwardBackward…" C++ frame name, on 32 allocations', 256, 16 * 1024),
  // Every stack compared with every earlier one in the bucket before.
  family('stack-hash-collisions', 'collide', 'stacks with one hash', 2048, 262_144),
  // The same stacks of library frames: each a distinct call path, ~130 call-tree nodes per stack
  // before (4 GB at 16,384 stacks); the tree now stops growing at MAX_CALL_NODES. At 262,144 it ends
  // in 26 s but at 1.25 GB resident (the stack table and a path per live stack): over the 1 GiB goal.
  family('library-call-paths', 'collide-lib', 'distinct library call paths', 2048, 65_536),
  // Each entry walked the whole shared list before; n frames, n/5,000 entries (1,000 at full size).
  // `check` reads and replays; `analyze` adds attribution and the kinds, each once per distinct stack.
  family('shared-frame-list', 'shared', 'frames in one list shared by one entry per 5,000', 200_000, 5_000_000, true),
  family('shared-frame-list-analyze', 'shared', 'frames in one list shared by one entry per 5,000', 200_000, 5_000_000),
  // Linear before too, but 54 s at the 7.3 MB: the work budget now counts BigInt decoding.
  family('long1-bignums', 'long1', '64-byte LONG1 integers (32 million: a 7.3 MB .gz)', 1_000_000, 32_000_000),
];
