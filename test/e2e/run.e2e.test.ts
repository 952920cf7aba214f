import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { timelineFrame } from './pages/timeline';
import { waitFor } from './waitFor';

// CI has no GPU: this run replays samples recorded by `headroom run` on an H200 through the real
// launcher, channel and extension (test/fixtures/runs/README.md). It is the one place in the tests
// where recorded data stands in for a live workload.
const RECORDED = join(__dirname, '..', 'fixtures', 'runs', 'lm_train_samples', 'samples.jsonl');
const samples = readFileSync(RECORDED, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { allocated: number; reserved: number; max_allocated: number });

// A peak snapshot recorded on an H200 from the workspace's train.py, announced by the replay.
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'snapshots', 'e2e_train_b64.pickle');

/** The top line of train.py at the snapshot's peak, as `headroom analyze --json` reports it. */
function topLine(): { line: number; self_bytes: number } {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAPSHOT, '--json', '--top', '0'], {
    encoding: 'utf8',
  });
  const lines = (JSON.parse(out) as { lines: { file: string; line: number; self_bytes: number }[] }).lines.filter((l) =>
    l.file.endsWith('/train.py'),
  );
  return lines.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
}

/** GiB with 2 decimals (1 from 10 GiB, 0 from 100 GiB): what a person reads in the status bar. */
function gib(n: number): string {
  const g = n / 2 ** 30;
  return g.toFixed(g >= 100 ? 0 : g >= 10 ? 1 : 2);
}

// A script that never uses CUDA (the run records nothing).
const NO_CUDA = join(mkdtempSync(join(tmpdir(), 'headroom-nocuda-')), 'no_cuda.py');
writeFileSync(NO_CUDA, 'if __name__ == "__main__":\n    print("no CUDA here")\n');

describe('a run with live memory in the status bar', () => {
  let s: Session | undefined;
  before(async () => {
    s = await Session.open({
      workspace: join(__dirname, 'workspace'),
      files: [
        [RECORDED, 'recorded_samples.jsonl'],
        [SNAPSHOT, 'peak.pickle'],
        [NO_CUDA, 'no_cuda.py'],
      ],
      settings: { 'headroom.run.env': { REPLAY_HOLD_S: '30', REPLAY_SNAPSHOT: 'peak.pickle' } },
    });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'the status bar shows allocated / reserved and the peak of the run',
    () => s!,
    async (s) => {
      await s.workbench.openFile('replay_run.py');
      // Started from the code lens above `if __name__ == "__main__":`.
      const lens = s.page.locator('.editor-instance .codelens-decoration a', { hasText: 'Run with Memory Tracking' }).first();
      await lens.waitFor({ timeout: 60_000 });
      assert.deepEqual(await s.editor.codeLenses(), ['Run with Memory Tracking']);
      await lens.click();
      const last = samples.at(-1)!;
      const peak = Math.max(...samples.map((x) => x.max_allocated));
      const expected = `${gib(last.allocated)} / ${gib(last.reserved)} GiB ▲${gib(peak)}`;
      const item = s.page.locator('.statusbar-item', { hasText: ' GiB ▲' }).first();
      await s.page.waitForFunction(
        (want) => [...document.querySelectorAll('.statusbar-item')].some((e) => (e as HTMLElement).innerText.trim() === want),
        expected,
        { timeout: 60_000 },
      );
      assert.equal((await item.innerText()).trim(), expected);
      // The run folder was made by the launcher, with the command it ran.
      const runs = join(s.workspace, '.headroom', 'runs');
      assert.ok(existsSync(runs));
      const [run] = readdirSync(runs);
      const launch = JSON.parse(readFileSync(join(runs, run!, 'launch.json'), 'utf8')) as { command: string[]; launcher: string };
      assert.equal(launch.launcher, 'vscode');
      assert.ok(launch.command.at(-1)!.endsWith('replay_run.py'));
    },
  );

  e2e(
    'while it runs, the peak snapshot it writes is put onto the code',
    () => s!,
    async (s) => {
      const top = topLine();
      await s.workbench.openFile('train.py');
      // The terminal takes half the window: bring the line into view (only rendered lines are read).
      await s.editor.goToLine(top.line);
      const decos = await waitFor(
        `a decoration on train.py:${top.line}`,
        () => s.editor.afterDecorations(),
        (d) => d.some((x) => x.line === top.line),
      );
      const onTop = decos.find((d) => d.line === top.line);
      assert.ok(onTop, `no decoration on train.py:${top.line}: ${JSON.stringify(decos)}`);
      assert.match(onTop.text, /^▲ ?[\d.]+ \S+$/);
      // Still running: the status bar shows live figures, not the ended run's peak.
      assert.ok(await s.page.locator('.statusbar-item', { hasText: ' GiB ▲' }).count());
    },
  );

  e2e(
    'the timeline follows the run live, and a hidden panel gets everything again when shown',
    () => s!,
    async (s) => {
      const liveState = async (f: Frame) =>
        f.evaluate(() => {
          const l = (window as unknown as { __timeline: { live: { t: number[]; reserved: number[]; active: boolean } } }).__timeline.live;
          return {
            n: l.t.length,
            maxReserved: Math.max(...l.reserved),
            active: l.active,
            title: document.querySelector('h1')!.textContent,
          };
        });
      const want = { n: samples.length, maxReserved: Math.max(...samples.map((x) => x.reserved)) };
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      let f = await timelineFrame(s.page);
      await f.waitForFunction(
        (n) => (window as unknown as { __timeline: { live: { t: number[] } } }).__timeline.live.t.length >= n,
        want.n,
        { timeout: 30_000 },
      );
      let got = await liveState(f);
      assert.deepEqual({ n: got.n, maxReserved: got.maxReserved }, want);
      assert.match(got.title ?? '', /replay_run\.py .*— live/);
      // Hidden (another editor on top of it in its group), then shown again: the page was discarded
      // and asks for everything on `ready`.
      await s.workbench.openFile('train.py');
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      f = await timelineFrame(s.page);
      await f.waitForFunction(
        (n) => (window as unknown as { __timeline: { live: { t: number[] } } }).__timeline.live.t.length >= n,
        want.n,
        { timeout: 30_000 },
      );
      got = await liveState(f);
      assert.deepEqual({ n: got.n, maxReserved: got.maxReserved }, want);
      assert.ok(Number(await f.locator('canvas.plot').getAttribute('data-drawn')) > 0);
    },
  );

  e2e(
    'when the run ends, the status bar keeps its peak and the exit code is recorded',
    () => s!,
    async (s) => {
      const peak = Math.max(...samples.map((x) => x.max_allocated));
      const runs = join(s.workspace, '.headroom', 'runs');
      const [run] = readdirSync(runs);
      await s.page.locator('.statusbar-item', { hasText: 'peak' }).first().waitFor({ timeout: 90_000 });
      const text = (await s.page.locator('.statusbar-item', { hasText: 'peak' }).first().innerText()).trim();
      assert.match(text, new RegExp(`peak ${(peak / 2 ** 30).toFixed(2)} GiB`));
      const launch = JSON.parse(readFileSync(join(runs, run!, 'launch.json'), 'utf8')) as { exit_code: number; status: string };
      assert.equal(launch.status, 'ended');
      assert.equal(launch.exit_code, 0);
      // The run's summary names the top line of the snapshot it wrote.
      await s.page.locator('.notification-toast', { hasText: 'ended (exit code 0)' }).first().waitFor({ timeout: 60_000 });
      const note = (await s.workbench.notifications()).find((n) => n.includes('ended (exit code 0)'));
      assert.match(note ?? '', new RegExp(`top line train\\.py:${topLine().line} `));
    },
  );

  e2e(
    'a run that never used CUDA: the status bar says nothing was recorded, not a peak of 0',
    () => s!,
    async (s) => {
      await s.workbench.openFile('no_cuda.py');
      await s.workbench.runCommand('Headroom: Run Python File with Memory Tracking');
      const item = s.page.locator('.statusbar-item', { hasText: 'nothing recorded' }).first();
      await item.waitFor({ timeout: 90_000 });
      assert.equal(await s.page.locator('.statusbar-item', { hasText: /peak 0\.00 GiB/ }).count(), 0);
    },
  );
});
