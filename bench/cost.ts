import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allFamilies, runCase, verdict } from '../test/cost/run';

// Issue 39's bound at full size: every family ends within 30 s under 1 GiB, exit 0 or one typed line.
// npm run cost [NAME…]: the families named (default all). Prints one row per family.
const LIMIT_MS = 30_000;
const LIMIT_RSS = 1 << 30;

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const families = (await allFamilies()).filter((f) => !only.length || only.includes(f.name));
  let bad = 0;
  console.log('family | n | time | peak RSS | verdict');
  for (const f of families) {
    const dir = mkdtempSync(join(tmpdir(), `headroom-cost-${f.name}-`));
    try {
      const c = f.make(dir, f.full);
      const r = runCase(c, dir, 1024);
      const v = verdict(r) ?? (r.ms > LIMIT_MS ? 'over 30 s' : r.rss > LIMIT_RSS ? 'over 1 GiB' : 'ok');
      if (v !== 'ok') bad++;
      console.log(
        `${f.name} | ${f.full} ${f.unit} | ${(r.ms / 1000).toFixed(2)} s | ${(r.rss / 2 ** 20).toFixed(0)} MiB | ${v} (exit ${r.status})`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.exit(bad ? 1 : 0);
}

void main();
