import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fixture } from './helpers';

export const MiB = 2 ** 20;
export const T0 = 1_764_000_000_000_000; // µs

/**
 * A two-rank run folder as the agent lays it out, assembled from two real H200 captures of the same
 * script (batch 64 and 128: what a rank given twice the data shows). Rank 0 has samples carrying
 * PyTorch's own peak figures (its truth file) and the driver's figure for the process; rank 1 has
 * none, so its peak comes from its snapshot alone, and it ran out of memory.
 */
export function twoRanks(): { dir: string; b64: ReturnType<typeof fixture>; b128: ReturnType<typeof fixture> } {
  const b64 = fixture('e2e_train_b64');
  const b128 = fixture('e2e_train_b128');
  const runs = mkdtempSync(join(tmpdir(), 'headroom-ranks-'));
  const run = join(runs, '20261124-010203-train-ab12');
  for (const r of [0, 1]) {
    mkdirSync(`${run}-rank${r}`);
    writeFileSync(join(`${run}-rank${r}`, 'meta.json'), JSON.stringify({ rank: r, world_size: 2 }));
  }
  const t = b64.truth!;
  const sample = (dt: number, allocated: number, maxReq: number) =>
    JSON.stringify({
      t: T0 + dt,
      device: 0,
      allocated,
      reserved: t.max_memory_reserved,
      active: allocated,
      inactive_split: 0,
      requested: allocated,
      max_allocated: t.max_memory_allocated,
      max_reserved: t.max_memory_reserved,
      max_requested: maxReq,
      retries: 0,
      ooms: 0,
      device_used: t.max_memory_reserved + 512 * MiB,
    });
  writeFileSync(
    join(`${run}-rank0`, 'samples.jsonl'),
    [
      sample(0, 100 * MiB, 200 * MiB),
      sample(900_000, 300 * MiB, t.requested_bytes_peak),
      sample(1_100_000, 80 * MiB, t.requested_bytes_peak),
    ].join('\n') + '\n',
  );
  copyFileSync(b64.path, join(`${run}-rank0`, 'snapshot-peak.pickle'));
  copyFileSync(b128.path, join(`${run}-rank1`, 'snapshot-oom-1.pickle'));
  writeFileSync(join(`${run}-rank1`, 'events.jsonl'), JSON.stringify({ type: 'event', event: 'oom', t: T0 + 1_000_000, device: 0 }) + '\n');
  return { dir: `${run}-rank1`, b64, b128 };
}

/**
 * Two ranks recorded with module scopes: the real nanoGPT captures of test/fixtures/modules (eager
 * and compiled: the same modules, different memory), as rank 0 and rank 1 with no samples.
 */
export function twoRanksWithModules(): { dir: string; snapshots: [string, string] } {
  const runs = mkdtempSync(join(tmpdir(), 'headroom-ranks-'));
  const run = join(runs, '20261124-020304-nanogpt-cd34');
  const from = ['nanogpt_eager', 'nanogpt_compiled'].map((n) => join(__dirname, '..', 'fixtures', 'modules', n, 'snapshot-peak.pickle.gz'));
  from.forEach((gz, r) => {
    mkdirSync(`${run}-rank${r}`);
    writeFileSync(join(`${run}-rank${r}`, 'meta.json'), JSON.stringify({ rank: r, world_size: 2 }));
    writeFileSync(join(`${run}-rank${r}`, 'snapshot-peak.pickle'), gunzipSync(readFileSync(gz)));
  });
  return { dir: `${run}-rank0`, snapshots: [from[0]!, from[1]!] };
}
