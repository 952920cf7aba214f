import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { twoRanks } from '../unit/twoRanks';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';

// A two-rank run folder (test/unit/twoRanks.ts: two real captures as rank 0 and rank 1, rank 1 out
// of memory). Opening rank 1's snapshot shows the run's ranks beside its summary, with the CLI's figures.
describe('a distributed run’s ranks on the summary page', () => {
  let s: Session | undefined;
  const run = twoRanks();
  before(async () => {
    s = await Session.open({ workspace: join(__dirname, 'workspace') });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'each rank’s peak, the imbalance, the lines that differ and the others’ state at the OOM',
    () => s!,
    async (s) => {
      const cli = JSON.parse(
        execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'ranks', run.dir, '--json'], { encoding: 'utf8' }),
      );
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(run.dir, 'snapshot-oom-1.pickle'));
      const page = webviewContent(s.page);
      await page.locator('section.ranks').waitFor({ timeout: 60_000 });
      assert.match(await page.locator('section.ranks h2').innerText(), /Ranks \(2\): this is rank 1/);
      for (const r of cli.ranks)
        assert.equal(
          Number(await page.locator(`section.ranks tr[data-rank="${r.rank}"] td.bytes`).first().getAttribute('data-bytes')),
          r.peak,
          `rank ${r.rank}`,
        );
      assert.equal(Number(await page.locator('section.ranks [data-fact="imbalance"]').getAttribute('data-bytes')), cli.imbalance);
      // The other rank's lines arrive once its snapshot was read, in the background.
      const rows = page.locator('table.rank-lines tr:has(td)');
      await rows.first().waitFor({ timeout: 60_000 });
      assert.equal(await rows.count(), cli.lines.length);
      const first = (await rows.first().innerText()).split('\t').map((x) => x.trim());
      assert.equal(first.at(-1), `${cli.lines[0].file.split('/').pop()}:${cli.lines[0].line}`);
      assert.match(
        await page.locator('section.ranks').innerText(),
        /Rank 1 ran out of memory at .*\n[\s\S]*rank 0: allocated 300 MiB, reserved \S+ \S+, outside PyTorch 512 MiB \(100 ms before\)/,
      );
    },
  );
});
