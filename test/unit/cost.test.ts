import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { allFamilies, runCase, verdict } from '../cost/run';
import type { CostRun } from '../cost/run';

// Issue 39: every hostile family at two CI sizes, n and 4n. Each run must end cleanly (exit 0/1/2,
// one typed line at most, no raw control character), and the work (wall time less a bare start of
// the CLI) may grow at most 8× for 4× the input: linear is 4×, n log n a little more, quadratic 16×.
// Each family's CI size is chosen so that the quadratic code it replaced fails here (work under
// 50 ms counts as 50 ms: noise, not growth).
// Full sizes, with time and memory: npm run cost.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const REPS = 3;

describe('cost grows with the input, not faster', async () => {
  const families = await allFamilies();
  const dir = mkdtempSync(join(tmpdir(), 'headroom-cost-'));
  const start = median(Array.from({ length: REPS }, () => runCase({ argv: ['--version'] }, dir).ms));

  it('has families to run', () => assert.ok(families.length > 0));
  for (const f of families) {
    it(`${f.name}: ${f.unit}, n = ${f.small} and ${4 * f.small}`, (t) => {
      const at = (n: number): CostRun[] => {
        const d = mkdtempSync(join(dir, `${f.name}-${n}-`));
        const c = f.make(d, n);
        const runs = Array.from({ length: REPS }, () => runCase(c, d));
        rmSync(d, { recursive: true, force: true });
        for (const r of runs) assert.equal(verdict(r), undefined, `${f.name} at n = ${n}`);
        return runs;
      };
      const one = median(at(f.small).map((r) => r.ms)) - start;
      const four = median(at(4 * f.small).map((r) => r.ms)) - start;
      const growth = four / Math.max(one, 50);
      t.diagnostic(`work ${one.toFixed(0)} ms → ${four.toFixed(0)} ms (×${growth.toFixed(1)}); a bare start ${start.toFixed(0)} ms`);
      assert.ok(growth <= 8, `4× the input cost ${growth.toFixed(1)}× the work (${one.toFixed(0)} → ${four.toFixed(0)} ms)`);
    });
  }
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});
