import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { clippedDecorations, frameWith, hoverHeights, misfits, plotBox } from './pages/layout';
import { timelineFrame } from './pages/timeline';
import { waitFor } from './waitFor';

// The demo (npm start) at the harness's 1440×900: its script and its capture, mapped onto the
// workspace copy, with the summary and then the timeline beside the code.
const DEMO = join(ROOT, 'demo', 'workspace');
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');

interface Line {
  file: string;
  line: number;
  self_bytes: number;
}

/** The hottest line of the demo script, from the CLI (not from the page under test). */
function hottest(): Line {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAPSHOT, '--json', '--top', '0'], {
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { lines: Line[] }).lines
    .filter((l) => l.file.endsWith('train_leaky.py'))
    .reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
}

const shot = async (s: Session, name: string): Promise<string> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `layout-${name}.png`);
  await s.page.screenshot({ path });
  return path;
};

describe('layout at 1440×900, side by side', () => {
  let s: Session | undefined;
  let summary: Frame;
  let timeline: Frame;
  let pinAt: { x: number; y: number } | undefined;
  const paths: string[] = [];
  const top = hottest();

  before(async () => {
    s = await Session.open({ workspace: DEMO });
    execFileSync('python3', [
      join(ROOT, 'demo', 'map_frames.py'),
      SNAPSHOT,
      join(s.workspace, 'leaky_demo.pickle'),
      'train_leaky.py',
      join(s.workspace, 'train_leaky.py'),
    ]);
    await s.activate('train_leaky.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'the viewport is 1440×900',
    () => s!,
    async (s) => {
      assert.deepEqual(s.page.viewportSize(), { width: 1440, height: 900 });
    },
  );

  e2e(
    'the summary beside the code: no figure wraps or overflows its box; decorations fit',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'leaky_demo.pickle'));
      summary = await frameWith(s.page, '[data-fact="peak"]');
      await s.workbench.openFile('train_leaky.py');
      await s.editor.afterDecorationsWith('▲');
      await s.page.waitForTimeout(500);
      const cells = await misfits(summary, 'td.bytes, dd', 'table, dl');
      assert.ok(cells.checked >= 10, `only ${cells.checked} figures in the summary`);
      assert.deepEqual(cells.bad, []);
      // The editor is scrolled to the top: the decorations of lines whose code fits must fit too.
      const decos = await clippedDecorations(s.page);
      assert.ok(decos.checked >= 2, `only ${decos.checked} decorations in view`);
      assert.deepEqual(decos.clipped, []);
      paths.push(await shot(s, 'summary'));
    },
  );

  e2e(
    'the leak lines on the summary are links that open their line, with the full path only in the title',
    () => s!,
    async (s) => {
      const items = summary.locator('section.leak li');
      assert.ok((await items.count()) >= 1, 'the demo leaks');
      const first = items.first();
      const link = first.locator('a');
      assert.match(await link.innerText(), /^train_leaky\.py:\d+$/);
      assert.doesNotMatch(await first.innerText(), /\//, 'no absolute path in the text');
      assert.match(await first.innerText(), /keeps /);
      const line = Number(/:(\d+)$/.exec(await link.innerText())![1]);
      await s.workbench.openFile('README.md');
      await link.click();
      await s.page.locator('.editor-group-container .tab.active[data-resource-name="train_leaky.py"]').first().waitFor({ timeout: 60_000 });
      // The file opens in the first group at the line; focus may stay with the page just clicked.
      await s.workbench.runCommand('View: Focus First Editor Group');
      assert.equal(await s.workbench.activeFile(), 'train_leaky.py');
      const where = s.page.locator('.statusbar-item[id="status.editor.selection"]');
      await waitFor(
        `the cursor on line ${line}`,
        () => where.innerText(),
        (t) => t.includes(`Ln ${line},`),
        { everyMs: 100 },
      );
      assert.match(await where.innerText(), new RegExp(`Ln ${line}, Col 1`));
    },
  );

  e2e(
    'the hover on the hottest line is at most half the editor high',
    () => s!,
    async (s) => {
      const text = await s.editor.hover(top.line);
      assert.match(text, /stack of the largest, innermost first/);
      const h = await hoverHeights(s.page);
      // Its natural height (what it would take unclipped), not the height VS Code cuts it to.
      assert.ok(h.hover > 0 && h.hover <= h.editor / 2, `hover ${h.hover}px vs editor ${h.editor}px`);
      paths.push(await shot(s, 'hover'));
      await s.page.keyboard.press('Escape');
    },
  );

  e2e(
    'the Headroom view’s labels fit the side bar',
    () => s!,
    async (s) => {
      await s.page.locator('.activitybar .action-item a[aria-label^="Headroom"]').first().click();
      const rows = s.page.locator('.pane-body .monaco-list-row .label-name');
      await rows.first().waitFor({ timeout: 30_000 });
      await s.page.waitForTimeout(500);
      const labels = await misfits(s.page, '.pane-body .monaco-list-row .label-name', '.monaco-list-row');
      assert.ok(labels.checked >= 6, `only ${labels.checked} labels`);
      assert.deepEqual(labels.bad, []);
      // A label cut short runs past its label container (which ends in an ellipsis).
      const cut = await s.page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('.pane-body .monaco-list-row .label-name')]
          .filter((e) => e.getBoundingClientRect().right > e.closest('.monaco-icon-label-container')!.getBoundingClientRect().right + 1)
          .map((e) => e.textContent),
      );
      assert.deepEqual(cut, []);
      paths.push(await shot(s, 'view'));
      await s.page.locator('.activitybar .action-item a[aria-label^="Explorer"]').first().click();
    },
  );

  e2e(
    'the timeline beside the code: the tooltip stays inside the plot, its figures unwrapped',
    () => s!,
    async (s) => {
      await s.workbench.openFile('train_leaky.py');
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      timeline = await timelineFrame(s.page);
      await timeline.waitForFunction(
        () =>
          (window as unknown as { __timeline: { primary?: unknown } }).__timeline.primary !== undefined &&
          Number(document.querySelector('canvas.plot')!.getAttribute('data-drawn')) > 0,
        undefined,
        { timeout: 60_000 },
      );
      await timeline.waitForTimeout(500);
      const g = await plotBox(timeline);
      const canvas = timeline.locator('canvas.plot');
      // Bands near the plot's right edge: where a tooltip placed right of the pointer would be cut.
      let found = 0;
      for (const fx of [0.97, 0.9, 0.8]) {
        for (let y = g.top + g.height - 3; y > g.top && !found; y -= g.height / 30) {
          await canvas.hover({ position: { x: g.left + fx * g.width, y } });
          if (await timeline.locator('.tooltip').isVisible()) found = fx;
        }
        if (found) break;
      }
      assert.ok(found, 'no band near the right edge of the plot');
      await timeline.waitForTimeout(300);
      const tip = await misfits(timeline, '.tooltip .num', '.plot-wrap');
      assert.ok(tip.checked >= 2, `only ${tip.checked} figures in the tooltip`);
      assert.deepEqual(tip.bad, []);
      assert.deepEqual(
        (await misfits(timeline, '.tooltip', '.plot-wrap')).bad.filter((b) => !/wraps/.test(b.why)),
        [],
      );
      pinAt = { x: g.left + found * g.width, y: g.top + g.height - 3 };
      paths.push(await shot(s, 'timeline'));
    },
  );

  e2e(
    'pinning a block leaves the plot its size',
    () => s!,
    async (s) => {
      const canvas = timeline.locator('canvas.plot');
      const before = (await canvas.boundingBox())!;
      await canvas.click({ position: pinAt! });
      await timeline.locator('.pinned').waitFor({ timeout: 30_000 });
      await timeline.waitForTimeout(300);
      const after = (await canvas.boundingBox())!;
      assert.deepEqual([after.width, after.height], [before.width, before.height]);
      paths.push(await shot(s, 'timeline-pinned'));
    },
  );

  e2e(
    'the segments tab: pool figures unwrapped, bars with an axis and a legend',
    () => s!,
    async (s) => {
      await timeline.locator('button', { hasText: 'Segments' }).click();
      await timeline.locator('.segments td.bytes').first().waitFor({ timeout: 30_000 });
      await timeline.waitForTimeout(300);
      const pools = await misfits(timeline, '.segments td, .segments th', '.seg-table');
      assert.ok(pools.checked >= 14, `only ${pools.checked} cells`);
      assert.deepEqual(pools.bad, []);
      const key = await timeline.evaluate(() => ({
        legend: [...document.querySelectorAll('.seg-legend .seg-key')].map((e) => e.textContent),
        ticks: [...document.querySelectorAll('.seg-axis .tick')].map((e) => e.textContent),
        biggest: (document.querySelector('.segments canvas') as HTMLElement).getAttribute('aria-label'),
      }));
      assert.deepEqual(key.legend.slice(0, 4), ['allocated', 'pending free', 'hole', 'free']);
      assert.equal(key.ticks[0], '0 B');
      // The axis ends at the biggest segment, as the canvas's own label says.
      assert.ok(key.biggest?.endsWith(`largest ${key.ticks.at(-1)}`), `${key.biggest} vs ${key.ticks.at(-1)}`);
      assert.deepEqual((await misfits(timeline, '.seg-axis .tick, .seg-key', '.segments')).bad, []);
      paths.push(await shot(s, 'segments'));
      console.log(`layout screenshots:\n${paths.join('\n')}`);
    },
  );

  e2e(
    'the Getting Started walkthrough is contributed, with its three steps',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Help: Welcome');
      const entry = s.page.locator('.gettingStartedContainer button', { hasText: 'Get Started with Headroom' }).first();
      await entry.waitFor({ timeout: 30_000 });
      await entry.click();
      const steps = s.page.locator('.gettingStartedContainer .getting-started-step .step-title');
      await steps.first().waitFor({ timeout: 30_000 });
      const titles = (await steps.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
      assert.deepEqual(titles, [
        'Open a memory snapshot',
        'Run a script with memory tracking',
        'Read a lint finding and apply its quick fix',
      ]);
      paths.push(await shot(s, 'walkthrough'));
    },
  );
});
