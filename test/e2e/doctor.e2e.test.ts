import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';
import type { Locator } from 'playwright-core';

// A fixture run: the fragmentation OOM recorded on an H200 (test/gpu/capture/frag_oom.py), in a
// run folder whose launch.json names the workload. The re-run it asks for is the workspace's
// replay_run.py (no GPU here), so the command line and the setting are the real launcher's.
const FRAG = join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.pickle');
const RECORDED = join(ROOT, 'test', 'fixtures', 'runs', 'lm_train_samples', 'samples.jsonl');
const RUN = '20261122-000000-frag_oom-beef';
const OUTSIDE = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
const OUTSIDE_RUN = '20261122-091517-non_pytorch_oom-e2c7';
// Loops recorded on an H100 from test/gpu/capture/leaks.py, and that script in the workspace.
const LEAKS = join(ROOT, 'test', 'fixtures', 'leaks');
const SCRIPT = join(ROOT, 'test', 'gpu', 'capture', 'leaks.py');
const lines = (name: string) =>
  (JSON.parse(readFileSync(join(LEAKS, `${name}.truth.json`), 'utf8')) as { lines: Record<string, number> }).lines;

/** The doctor's verdict as `headroom check --explain-oom --json` gives it (same core, other surface). */
function cliVerdict(path = FRAG): string {
  const out = JSON.parse(
    execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', path, '--explain-oom', '--json'], { encoding: 'utf8' }),
  ) as { ooms: { class: string; reason: string }[] };
  return `${out.ooms[0]!.class} — ${out.ooms[0]!.reason}`;
}

/** `headroom whatif --json`'s predicted reserved peaks for these settings (same core, other surface). */
function cliWhatif(confs: string[], ...more: string[]): number[] {
  const out = JSON.parse(
    execFileSync(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), 'whatif', FRAG, ...confs.flatMap((c) => ['--alloc-conf', c]), ...more, '--json'],
      { encoding: 'utf8' },
    ),
  ) as { predicted: { reserved_peak_bytes: number }[] };
  return out.predicted.map((p) => p.reserved_peak_bytes);
}

/** `headroom whatif --batch-scale F --json`'s prediction for the doctor's snapshot. */
function cliScale(f: string): { requested_peak_bytes: number; reserved_peak_bytes: number; ooms: number } {
  return (
    JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'whatif', FRAG, '--batch-scale', f, '--json'], { encoding: 'utf8' }),
    ) as { predicted: { requested_peak_bytes: number; reserved_peak_bytes: number; ooms: number } }
  ).predicted;
}

interface Launch {
  command: string[];
  settings?: { allocConf?: Record<string, string>; capGib?: number };
  launcher: string;
}

/** Clicks a remedy's button and returns the launch.json of the run it started (the launcher writes it first). */
async function rerunBy(s: Session, button: Locator): Promise<Launch> {
  const runs = join(s.workspace, '.headroom', 'runs');
  // One run at a time: an earlier step's re-run must have ended (its launch.json says so).
  const going = () =>
    readdirSync(runs).some(
      (d) =>
        existsSync(join(runs, d, 'launch.json')) &&
        (JSON.parse(readFileSync(join(runs, d, 'launch.json'), 'utf8')) as { status?: string }).status === 'running',
    );
  // Past the guard the click goes ahead as before: the run it starts is still found below.
  await waitFor('the earlier re-run to end', going, (g) => !g, { guardMs: 30_000, returnLast: true });
  const before = new Set(readdirSync(runs));
  await button.click();
  // The fixture run folders were not written by this workspace's Headroom: it names the script and asks first.
  const dialog = s.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30_000 });
  assert.match(await dialog.innerText(), /launch\.json names the script to run:\s*\S*replay_run\.py/);
  await dialog.locator('.monaco-button', { hasText: 'Run This Script' }).click();
  const fresh = await waitFor('a run started (a new run folder with its launch.json)', () =>
    readdirSync(runs).find((d) => !before.has(d) && existsSync(join(runs, d, 'launch.json'))),
  );
  return JSON.parse(readFileSync(join(runs, fresh!, 'launch.json'), 'utf8')) as Launch;
}

describe('the OOM doctor in the editor', () => {
  let s: Session | undefined;
  before(async () => {
    s = await Session.open({
      workspace: join(__dirname, 'workspace'),
      files: [
        [RECORDED, 'recorded_samples.jsonl'],
        [SCRIPT, 'leaks.py'],
        [join(LEAKS, 'total_loss_eval.pickle'), 'total_loss_eval.pickle'],
        [join(LEAKS, 'total_loss_train.pickle'), 'total_loss_train.pickle'],
      ],
      // The DOM renderer puts the terminal's text in the page, where the link can be found.
      settings: { 'headroom.run.env': { REPLAY_HOLD_S: '1' }, 'terminal.integrated.gpuAcceleration': 'off' },
    });
    const dir = join(s.workspace, '.headroom', 'runs', RUN);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'frag_oom.pickle'), readFileSync(FRAG));
    // A training log whose last lines are PyTorch's own message for that OOM.
    const message = (
      JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.truth.json'), 'utf8')) as { oom: { message: string } }
    ).oom.message;
    writeFileSync(
      join(s.workspace, 'train.log'),
      `epoch 3 step 120 loss 2.31\nTraceback (most recent call last):\n  File "train.py", line 40, in <module>\ntorch.OutOfMemoryError: ${message}\n`,
    );
    writeFileSync(
      join(dir, 'launch.json'),
      JSON.stringify({ command: ['python3', join(s.workspace, 'replay_run.py')], launcher: 'cli', status: 'ended', exit_code: 1 }),
    );
    // The run recorded on an H100 with most of the device taken outside PyTorch (its samples give the device's size).
    const other = join(s.workspace, '.headroom', 'runs', OUTSIDE_RUN);
    mkdirSync(other, { recursive: true });
    for (const f of ['events.jsonl', 'samples.jsonl', 'gpu-at-oom.jsonl', 'meta.json', 'snapshot-oom-1.pickle'])
      writeFileSync(join(other, f), readFileSync(join(OUTSIDE, f)));
    // That run's OOM as its rank 0 printed it, wrapped, in a log of its own.
    const outside = (JSON.parse(readFileSync(join(OUTSIDE, 'truth.json'), 'utf8')) as { message: string }).message;
    writeFileSync(
      join(s.workspace, 'outside.log'),
      `[rank0]: step 7\n[rank0]: torch.OutOfMemoryError: ${outside.replace(/(.{90})/g, '$1\n[rank0]: ')}\n`,
    );
    writeFileSync(
      join(other, 'launch.json'),
      JSON.stringify({ command: ['python3', join(s.workspace, 'replay_run.py')], launcher: 'cli', status: 'ended', exit_code: 0 }),
    );
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'the OOM report opens from a fixture run, and a remedy re-launches with the changed setting',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, '.headroom', 'runs', RUN, 'frag_oom.pickle'));
      const page = webviewContent(s.page);
      const doctor = page.locator('section.doctor');
      await doctor.waitFor({ timeout: 60_000 });
      const heading = (await doctor.locator('h2').innerText()).trim();
      const why = (await doctor.locator('p').first().innerText()).trim();
      assert.equal(`${heading.replace(/^OOM: /, '')} — ${why}`, cliVerdict());
      // The segment map: the one segment (all that was reserved) in runs, and no free run that fits.
      const pieces = await doctor.locator('.segmap .seg .run').evaluateAll((rs) => rs.map((r) => Number((r as HTMLElement).dataset.bytes)));
      const reserved = Number(await page.locator('dd[data-fact="reserved-peak"]').getAttribute('data-bytes'));
      assert.equal(
        pieces.reduce((x, y) => x + y, 0),
        reserved,
      );
      assert.equal(await doctor.locator('.segmap .seg .run.fits').count(), 0);
      assert.match(await doctor.locator('.segmap h3').innerText(), /none is/);
      // The what-if section: each setting's predicted reserved peak is `headroom whatif`'s; the form predicts others.
      const whatif = page.locator('section.whatif');
      const settings = ['expandable_segments:True', 'max_split_size_mb:64', 'roundup_power2_divisions:4'];
      await whatif.locator(`tr[data-whatif="${settings[2]}"]`).waitFor({ timeout: 60_000 });
      const shown = async (conf: string) =>
        Number(await whatif.locator(`tr[data-whatif="${conf}"] td[data-bytes]`).getAttribute('data-bytes'));
      assert.deepEqual(await Promise.all(settings.map(shown)), cliWhatif(settings));
      assert.match(await whatif.locator('p').first().innerText(), /Limit: .*a memory fraction refused it/);
      const gc = 'garbage_collection_threshold:0.6,max_split_size_mb:128';
      await whatif.locator('input[name="alloc-conf"]').fill(gc);
      await whatif.locator('input[name="cap-gib"]').fill(String(1636 / 1024));
      await whatif.locator('button[type="submit"]').click();
      const asked = `${gc} under a ${1636 / 1024} GiB cap`;
      await page.locator(`section.whatif tr[data-whatif="${asked}"]`).waitFor({ timeout: 60_000 });
      assert.deepEqual([await shown(asked)], cliWhatif([gc], '--cap-gib', String(1636 / 1024)));
      await page.locator('section.whatif input[name="alloc-conf"]').fill('max_spilt_size_mb:64');
      await page.locator('section.whatif input[name="cap-gib"]').fill('');
      await page.locator('section.whatif button[type="submit"]').click();
      const bad = page.locator('section.whatif tr[data-whatif="max_spilt_size_mb:64"]');
      await bad.waitFor({ timeout: 60_000 });
      assert.match(await bad.innerText(), /not predicted: unknown allocator option max_spilt_size_mb/);
      // The batch section: 2× first; the slider at 4× shows `headroom whatif --batch-scale 4`'s peaks, against the OOM's limit.
      const batch = page.locator('section.scale');
      await batch.locator('p[data-scale="2"]').waitFor({ timeout: 60_000 });
      await batch.locator('input[name="batch-scale"]').evaluate((e) => {
        (e as HTMLInputElement).value = '2';
        e.dispatchEvent(new Event('change'));
      });
      await batch.locator('p[data-scale="4"]').waitFor({ timeout: 60_000 });
      const four = cliScale('4');
      assert.deepEqual(
        [
          Number(await batch.locator('[data-requested]').getAttribute('data-requested')),
          Number(await batch.locator('[data-reserved]').getAttribute('data-reserved')),
        ],
        [four.requested_peak_bytes, four.reserved_peak_bytes],
      );
      assert.match(await batch.innerText(), four.ooms ? /out of memory under/ : /fits under/);
      await batch.locator('button', { hasText: 'Largest batch that fits' }).click();
      await batch.locator('p.largest').waitFor({ timeout: 60_000 });
      assert.match(
        await batch.locator('p.largest').innerText(),
        /Largest that fits under the limit less 5 %: [\d.]+× the recorded batch|No batch fits/,
      );
      const launch = await rerunBy(s, doctor.locator('button[data-remedy="expandable-segments"]'));
      assert.equal(launch.launcher, 'vscode');
      assert.ok(launch.command.at(-1)!.endsWith('replay_run.py'), launch.command.join(' '));
      assert.equal(launch.settings?.allocConf?.expandable_segments, 'True');
      // And the log says the command line with the environment it set.
      await s.page.waitForTimeout(500);
      const log = [...s.logs().entries()].find(([k]) => /Headroom\.log$/.test(k))?.[1] ?? '';
      assert.match(log, /run \S+: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \S+ \S*replay_run\.py/);
    },
  );

  e2e(
    'a run whose memory was taken outside PyTorch: its report says so, and a remedy re-runs under the size of that GPU',
    () => s!,
    async (s) => {
      const snap = join(s.workspace, '.headroom', 'runs', OUTSIDE_RUN, 'snapshot-oom-1.pickle');
      // One report open: the page's webview is the first.
      await s.workbench.runCommand('View: Close All Editors');
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(snap);
      const doctor = webviewContent(s.page).locator('section.doctor', { hasText: 'OOM: non-pytorch' });
      await doctor.waitFor({ timeout: 60_000 });
      const cli = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', snap, '--explain-oom'], { encoding: 'utf8' });
      const why = (await doctor.locator('p').first().innerText()).trim();
      assert.equal(`non-pytorch — ${why}`, cliVerdict(snap));
      const cap = Number(/Reproduce under a ([\d.]+) GiB cap/.exec(cli)![1]);
      const total = (JSON.parse(readFileSync(join(OUTSIDE, 'truth.json'), 'utf8')) as { total: number }).total;
      assert.ok(Math.abs(cap - total / 2 ** 30) < 0.01, `${cap} GiB for a ${total} B device`);
      const launch = await rerunBy(s, doctor.locator('button[data-remedy="reproduce-cap"]'));
      assert.equal(launch.settings?.capGib, cap);
      await s.page.waitForTimeout(500);
      const log = [...s.logs().entries()].find(([k]) => /Headroom\.log$/.test(k))?.[1] ?? '';
      assert.match(log, new RegExp(`run \\S+: HEADROOM_CAP_GIB=${cap} \\S+ \\S*replay_run\\.py`));
    },
  );

  /** Problems rows (text and the row's accessible label, which names the severity), once `want` (`what`) shows. */
  const problems = (s: Session, what: string, want: (rows: { text: string; label: string }[]) => boolean) =>
    waitFor(
      `Problems rows with ${what}`,
      async () => {
        await s.problems.entries().catch(() => []);
        return s.page
          .locator('.markers-panel .monaco-list-row')
          .evaluateAll((es) =>
            es.map((e) => ({ text: (e as HTMLElement).innerText.replace(/\s+/g, ' ').trim(), label: e.getAttribute('aria-label') ?? '' })),
          );
      },
      want,
    );

  e2e(
    'a leaking run confirms the lint finding on its loop and marks the line that keeps memory',
    () => s!,
    async (s) => {
      const l = lines('total_loss_eval');
      await s.workbench.openFile('leaks.py');
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'total_loss_eval.pickle'));
      const rows = await problems(
        s,
        'the confirmed finding and its bytes per iteration',
        (r) => r.some((x) => x.text.includes('Confirmed by run')) && r.some((x) => x.text.includes('per iteration (')),
      );
      const acc = rows.find((r) => r.text.includes('HR001') && r.text.includes(`[Ln ${l.acc_eval}, `));
      assert.ok(acc, JSON.stringify(rows));
      assert.match(acc.text, /Confirmed by run .*: \+\d+ KiB per iteration/);
      const kept = rows.find((r) => r.text.startsWith('Keeps ') && r.text.includes(`[Ln ${l.eval_out}, `));
      assert.ok(kept, JSON.stringify(rows));
      // Its quick fix shows the leak's last iteration on the timeline: the moment the CLI names.
      const cli = spawnSync(
        process.execPath,
        [join(ROOT, 'dist', 'cli.js'), 'check', join(s.workspace, 'total_loss_eval.pickle'), '--no-leak'],
        { encoding: 'utf8' },
      );
      const at = Number(/the last at event #(\d+)/.exec(cli.stdout)![1]);
      // Double-clicking the problem puts the cursor on its line, in its editor.
      await s.page
        .locator('.markers-panel .monaco-list-row', { hasText: `[Ln ${l.eval_out}, ` })
        .filter({ hasText: 'Keeps ' })
        .first()
        .dblclick();
      await s.page.waitForTimeout(500);
      const fixes = await s.problems.quickFixes();
      const show = `Show the leak’s last iteration on the memory timeline (event #${at})`;
      assert.ok(
        fixes.some((f) => f.includes(show)),
        JSON.stringify(fixes),
      );
      await s.problems.applyQuickFix(show);
      await s.page.locator('.tab', { hasText: 'Memory Timeline' }).first().waitFor({ timeout: 30_000 });
      // The editors follow the instant the timeline shows: decorations say `at event #N`.
      await s.workbench.runCommand('View: Focus First Editor Group');
      await s.workbench.openFile('leaks.py');
      const decos = await s.editor.afterDecorationsWith(`at event #${at}`);
      assert.ok(
        decos.some((d) => d.text.includes(`at event #${at}`)),
        JSON.stringify(decos),
      );
    },
  );

  e2e(
    'a run where total_loss += loss after backward costs nothing turns that finding into a hint',
    () => s!,
    async (s) => {
      const l = lines('total_loss_train');
      await s.workbench.openFile('leaks.py');
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'total_loss_train.pickle'));
      const rows = await problems(s, 'the hint that it costs nothing', (r) => r.some((x) => x.text.includes('costs nothing on the GPU')));
      const acc = rows.find((r) => r.text.includes('HR001') && r.text.includes(`[Ln ${l.acc_train}, `));
      assert.ok(acc, JSON.stringify(rows));
      assert.match(acc.text, /measured 0 B per iteration here: it costs nothing on the GPU/);
      assert.match(acc.label, /^Info/i, acc.label);
    },
  );

  e2e(
    'an OOM message selected in a log is explained in a tab, as the CLI explains it',
    () => s!,
    async (s) => {
      await s.workbench.openFile('train.log');
      // Into the log's text (the Problems panel had the focus), then select all of it.
      await s.workbench.runCommand('View: Focus Active Editor Group');
      await s.page.keyboard.press('Control+A');
      await s.page.waitForFunction(() => /\(\d+ selected\)/.test(document.querySelector('.statusbar')?.textContent ?? ''), undefined, {
        timeout: 10_000,
      });
      await s.workbench.runCommand('Headroom: Explain CUDA Out-of-Memory Error…');
      // A new tab whose first line is the verdict.
      const line = s.page.locator('.editor-instance .view-line', { hasText: /^OOM:\s/ }).first();
      await line.waitFor({ timeout: 30_000 });
      const first = (await line.innerText()).replace(/\u00a0/g, ' ');
      const cli = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', join(s.workspace, 'train.log'), '--explain-oom'], {
        encoding: 'utf8',
      }).split('\n')[0]!;
      assert.equal(first.trim(), cli.trim());
      assert.match(first, /^OOM: fragmentation — /);
    },
  );

  /** How many OOM explanation tabs are open (their accessible names: `OOM n.txt`). */
  const oomTabs = (s: Session) =>
    s.page
      .locator('.tabs-container [role="tab"]')
      .evaluateAll((ts) => ts.filter((t) => /^OOM \d+\.txt\b/.test(t.getAttribute('aria-label') ?? '')).length);
  /** The first line of the newest OOM explanation, once there are more than `count` tabs. */
  const explanation = async (s: Session, count: number) => {
    await waitFor(
      `more than ${count} OOM explanation tabs`,
      () => oomTabs(s),
      (n) => n > count,
    );
    const tabs = await oomTabs(s);
    assert.ok(tabs > count, `a new explanation tab (${tabs} of them)`);
    const line = s.page.locator('.editor-instance .view-line', { hasText: /^OOM:\s/ }).first();
    await line.waitFor({ timeout: 30_000 });
    return { first: (await line.innerText()).replace(/\u00a0/g, ' ').trim(), tabs };
  };

  e2e(
    'an OOM printed in a terminal: a notification offers the explanation, and the message is a link to it',
    () => s!,
    async (s) => {
      const cli = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', join(s.workspace, 'train.log'), '--explain-oom'], {
        encoding: 'utf8',
      })
        .split('\n')[0]!
        .trim();
      const tabs = await oomTabs(s);
      await s.workbench.runCommand('Terminal: Create New Terminal');
      await s.page.locator('.terminal-wrapper.active .xterm').waitFor({ timeout: 30_000 });
      // The shell's integration must be up before the command, or VS Code sees no execution.
      await s.page.waitForTimeout(1500);
      // A run prints its OOM after a while; VS Code streams only what comes after the command starts.
      await s.page.keyboard.type('sleep 2; cat train.log\n', { delay: 20 });
      // Shell integration streams the command's output to the extension: a toast with the verdict.
      const toast = s.page.locator('.notification-toast', { hasText: 'CUDA out of memory in the terminal' });
      await toast.waitFor({ timeout: 30_000 });
      const said = (await toast.innerText()).replace(/\s+/g, ' ');
      assert.ok(said.includes(`CUDA out of memory in the terminal: ${cli.replace(/^OOM: /, '')}`), `${said}\nvs ${cli}`);
      await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Explain' }).first().click();
      const viaToast = await explanation(s, tabs);
      assert.equal(viaToast.first, cli);
      // The message in the terminal is a link: hovering "CUDA out of memory" shows ours, Ctrl+click follows it.
      const at = await s.page
        .locator('.terminal-wrapper.active .xterm-rows > div', { hasText: 'CUDA out of memory' })
        .first()
        .evaluate((row) => {
          const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const i = n.textContent!.indexOf('CUDA');
            if (i < 0) continue;
            const r = document.createRange();
            r.setStart(n, i);
            r.setEnd(n, i + 4);
            const b = r.getBoundingClientRect();
            return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
          }
          return null;
        });
      assert.ok(at, 'the message is on screen');
      // An overlay (.terminal-widget-container) sits above the rows: the events go to xterm's screen.
      const mouse = (types: string[], ctrlKey: boolean) =>
        s.page.locator('.terminal-wrapper.active .xterm-screen').evaluate(
          (el, a) => {
            for (const type of a.types)
              el.dispatchEvent(
                new MouseEvent(type, {
                  clientX: a.x,
                  clientY: a.y,
                  bubbles: true,
                  cancelable: true,
                  ctrlKey: a.ctrlKey,
                  button: 0,
                  view: window,
                }),
              );
          },
          { ...at, types, ctrlKey },
        );
      await mouse(['mousemove'], false);
      await s.page.waitForTimeout(300);
      await mouse(['mousemove'], false);
      await s.page
        .locator('.monaco-hover, .workbench-hover', { hasText: 'Headroom: explain this OOM (fragmentation)' })
        .first()
        .waitFor({ timeout: 30_000 });
      await mouse(['mousemove', 'mousedown', 'mouseup', 'click'], true);
      const viaLink = await explanation(s, viaToast.tabs);
      assert.equal(viaLink.first, cli);
    },
  );

  e2e(
    'a log open in the editor is explained whole; the workspace run that recorded the same OOM is the evidence, as check --run says',
    () => s!,
    async (s) => {
      const log = join(s.workspace, 'outside.log');
      await s.workbench.openFile('outside.log');
      const tabs = await oomTabs(s);
      await s.workbench.runCommand('Headroom: Explain CUDA Out-of-Memory Error…');
      const { first } = await explanation(s, tabs);
      const run = join(s.workspace, '.headroom', 'runs', OUTSIDE_RUN);
      const cli = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'check', log, '--explain-oom', '--run', run], {
        encoding: 'utf8',
      });
      assert.equal(first, cli.split('\n')[0]!.trim());
      assert.match(cli, /evidence: 20261122-091517-non_pytorch_oom-e2c7\/snapshot-oom-1\.pickle/);
      await s.page
        .locator('.editor-instance .view-line', { hasText: 'evidence: 20261122-091517-non_pytorch_oom-e2c7/snapshot-oom-1.pickle' })
        .first()
        .waitFor({ timeout: 30_000 });
    },
  );
});
