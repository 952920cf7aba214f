import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { timelineFrame } from './pages/timeline';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// A capture of test/e2e/workspace/train.py on an H200: its frames point at the workspace's lines.
const B64 = join(ROOT, 'test', 'fixtures', 'snapshots', 'e2e_train_b64.pickle');

interface Report {
  peak: { requested_bytes: number; trace_index: number };
  at: { trace_index: number } | null;
  lines: { file: string; line: number; function: string; self_bytes: number }[];
}

/** What `headroom analyze --json` says (at the peak, or at event `at`). */
function analyze(at?: number): Report {
  const args = [join(ROOT, 'dist', 'cli.js'), 'analyze', B64, '--json', '--top', '0', ...(at !== undefined ? ['--at', String(at)] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as Report;
}

/** Plot geometry in CSS pixels, from the page's own layout (the figures come from the CLI). */
interface Geometry {
  left: number;
  top: number;
  width: number;
  height: number;
  from: number;
  to: number;
  yMax: number;
}

async function geometry(f: Frame): Promise<Geometry> {
  return f.evaluate(() => {
    const app = (
      window as unknown as {
        __timeline: {
          chart: { plot: { x: number; y: number; w: number; h: number }; dpr: number };
          view: { from: number; to: number };
          yMax(): number;
        };
      }
    ).__timeline;
    const { plot, dpr } = app.chart;
    return {
      left: plot.x / dpr,
      top: plot.y / dpr,
      width: plot.w / dpr,
      height: plot.h / dpr,
      from: app.view.from,
      to: app.view.to,
      yMax: app.yMax(),
    };
  });
}

const xOf = (g: Geometry, index: number) => g.left + ((index + 0.5 - g.from) / (g.to - g.from)) * g.width;
const yOf = (g: Geometry, bytes: number) => g.top + g.height - (bytes / g.yMax) * g.height;

describe('memory timeline', () => {
  let s: Session | undefined;
  let f: Frame;
  const peak = analyze();
  const top = peak.lines.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
  let pinnedAt: { x: number; y: number } | undefined;

  before(async () => {
    s = await Session.open({ workspace: join(__dirname, 'workspace'), files: [[B64, 'b64.pickle']] });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'the panel opens from a snapshot, and its canvas shows the allocations',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'b64.pickle'));
      await webviewContent(s.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      f = await timelineFrame(s.page);
      // Drawn once the host's frame for the visible window has arrived.
      await f.waitForFunction(
        () =>
          (window as unknown as { __timeline: { primary?: unknown } }).__timeline.primary !== undefined &&
          Number(document.querySelector('canvas.plot')!.getAttribute('data-drawn')) > 0,
        undefined,
        { timeout: 60_000 },
      );
      await f.waitForTimeout(300);
      // The frames crossed VS Code's channel as typed arrays (no copying into plain arrays).
      assert.equal(
        await f.evaluate(() => (window as unknown as { __timeline: { framesConverted: number } }).__timeline.framesConverted),
        0,
      );
      const g = await geometry(f);
      // At the CLI's peak event, everything from the axis up to the requested bytes is bands.
      const x = xOf(g, peak.peak.trace_index);
      const yTop = yOf(g, peak.peak.requested_bytes);
      const column = await f.evaluate(
        ({ x, y0, y1 }) => {
          const c = document.querySelector('canvas.plot') as HTMLCanvasElement;
          const r = c.width / c.clientWidth;
          const px = c.getContext('2d')!.getImageData(Math.round(x * r), Math.round(y1 * r), 1, Math.round((y0 - y1) * r)).data;
          const alpha: number[] = [];
          for (let i = 3; i < px.length; i += 4) alpha.push(px[i]!);
          return alpha;
        },
        { x, y0: g.top + g.height - 1, y1: yTop + 2 },
      );
      assert.ok(column.length > 20, `a tall enough column: ${column.length} px`);
      const empty = column.filter((a) => a === 0).length;
      assert.equal(empty, 0, `${empty} of ${column.length} pixels under the peak are background`);
    },
  );

  e2e(
    'hovering a band of the peak shows its size and line',
    () => s!,
    async (s) => {
      const g = await geometry(f);
      const x = xOf(g, peak.peak.trace_index);
      const canvas = f.locator('canvas.plot');
      const seen: string[] = [];
      for (let y = g.top + g.height - 3; y > yOf(g, peak.peak.requested_bytes) && !pinnedAt; y -= g.height / 40) {
        await canvas.hover({ position: { x, y } });
        const text = await waitFor(
          'the tooltip to name a line or small allocations',
          async () => ((await f.locator('.tooltip').isVisible()) ? await f.locator('.tooltip').innerText() : ''),
          (t) => /\.py:\d+/.test(t) || /small allocations/.test(t),
          // A sample, not a wait that must end: over no band there is no tooltip, and the scan goes on.
          { guardMs: 2_000, everyMs: 50, returnLast: true },
        );
        seen.push(text);
        if (text.includes(`train.py:${top.line} ${top.function}`)) pinnedAt = { x, y };
      }
      assert.ok(pinnedAt, `no band of train.py:${top.line} under the pointer: ${JSON.stringify(seen)}`);
      // Every line the tooltips named holds memory at the peak according to the CLI.
      for (const t of seen) {
        const m = /train\.py:(\d+)/.exec(t);
        if (m)
          assert.ok(
            peak.lines.some((l) => l.line === Number(m[1]) && l.self_bytes > 0),
            `${t} names a line the CLI does not list`,
          );
        if (t) assert.match(t, /\d+(\.\d+)? (B|KiB|MiB|GiB)/);
      }
    },
  );

  e2e(
    'clicking a band pins its stack; a frame opens the file at its line',
    () => s!,
    async (s) => {
      await f.locator('canvas.plot').click({ position: pinnedAt! });
      const button = f.locator(`.pinned button.frame[data-line="${top.line}"]`).first();
      await button.waitFor({ timeout: 30_000 });
      // Another file in the first group (the panel stays visible in its own), so the jump shows.
      await s.workbench.runCommand('View: Focus First Editor Group');
      await s.workbench.openFile('replay_run.py');
      f = await timelineFrame(s.page);
      await f.locator(`.pinned button.frame[data-line="${top.line}"]`).first().click();
      await s.page.locator('.editor-group-container .tab.active[data-resource-name="train.py"]').first().waitFor({ timeout: 60_000 });
      // The file opens in the first group at the line; focus may stay with the panel just clicked.
      await s.workbench.runCommand('View: Focus First Editor Group');
      const where = s.page.locator('.statusbar-item[id="status.editor.selection"]');
      await waitFor(
        `the cursor on line ${top.line}`,
        () => where.innerText(),
        (t) => t.includes(`Ln ${top.line},`),
        { everyMs: 100 },
      );
      assert.match(await where.innerText(), new RegExp(`Ln ${top.line}, Col 1`));
    },
  );

  e2e(
    'clicking an instant moves the decorations there',
    () => s!,
    async (s) => {
      f = await timelineFrame(s.page);
      const g = await geometry(f);
      const instantNow = () =>
        f.evaluate(() => (window as unknown as { __timeline: { init: { instant: { index: number } } } }).__timeline.init.instant.index);
      const was = await instantNow();
      const target = Math.round(peak.peak.trace_index * 0.45);
      // Above every band: a click that sets the instant without pinning.
      await f.locator('canvas.plot').click({ position: { x: xOf(g, target), y: g.top + g.height * 0.05 + 10 } });
      const index = await f.waitForFunction(
        (before) => {
          const i = (window as unknown as { __timeline: { init: { instant: { index: number } } } }).__timeline.init.instant.index;
          return i !== before ? i : undefined;
        },
        was,
        { timeout: 30_000 },
      );
      const at = (await index.jsonValue()) as number;
      assert.ok(Math.abs(at - target) <= 1, `instant ${at} for a click at event ${target}`);
      const expected = analyze(at);
      const best = expected.lines.filter((l) => l.file.endsWith('/train.py')).reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      await s.workbench.runCommand('View: Focus First Editor Group');
      await s.workbench.openFile('train.py');
      const decos = await s.editor.afterDecorationsWith(`at event #${at}`);
      const line = decos.find((d) => d.line === best.line);
      assert.ok(line, `a decoration on line ${best.line}: ${JSON.stringify(decos)}`);
      assert.match(line.text, new RegExp(`at event #${at}`));
      assert.ok(!decos.some((d) => / at peak/.test(d.text)), JSON.stringify(decos));
    },
  );

  e2e(
    'the keyboard walks the plot and says where it is',
    () => s!,
    async (s) => {
      f = await timelineFrame(s.page);
      await f.locator('canvas.plot').focus();
      await s.page.keyboard.press('p');
      await s.page.keyboard.press('ArrowUp');
      const said = await f.locator('.sr-status').innerText();
      assert.match(said, /\d+(\.\d+)? (B|KiB|MiB|GiB)/);
      assert.match(said, new RegExp(`event #${peak.peak.trace_index}\\b`));
      mkdirSync(ARTIFACTS, { recursive: true });
      await s.page.screenshot({ path: join(ARTIFACTS, 'timeline.png') });
    },
  );

  e2e(
    'x as time: the plot and the minimap show the whole trace on a time axis',
    () => s!,
    async (s) => {
      f = await timelineFrame(s.page);
      await f.locator('select').nth(1).selectOption('time');
      await f.locator('canvas.plot').focus();
      await s.page.keyboard.press('0');
      // The minimap's curves (opaque), not just its brush (translucent) and the brush's border.
      const opaque = async () =>
        f.evaluate(() => {
          const c = document.querySelector('canvas.minimap') as HTMLCanvasElement;
          const d = c.getContext('2d')!.getImageData(3, 3, c.width - 6, c.height - 6).data;
          let n = 0;
          for (let i = 3; i < d.length; i += 4) if (d[i]! > 200) n++;
          return n;
        });
      const n = await waitFor('opaque pixels in the minimap', opaque, (n) => n !== 0, { everyMs: 100 });
      assert.ok(n > 50, `${n} opaque pixels in the minimap`);
      const ticks = await f.evaluate(() => (window as unknown as { __timeline: { timeMode: boolean } }).__timeline.timeMode);
      assert.equal(ticks, true);
      await f.locator('select').nth(1).selectOption('index');
    },
  );

  e2e(
    'hidden and shown again, the page keeps its window; after a window reload it comes back',
    () => s!,
    async (s) => {
      // Zoomed in first, so the window to come back is not simply the whole trace.
      f = await timelineFrame(s.page);
      await f.locator('canvas.plot').focus();
      await s.page.keyboard.press('+');
      await s.page.keyboard.press('+');
      await s.page.waitForTimeout(300);
      const before = await geometry(f);
      assert.ok(before.to - before.from < 421 / 2, JSON.stringify(before));
      // The summary's tab on top of the panel in their group discards the page; shown again, it is
      // rebuilt from getState and the host's answers.
      await s.page.locator('.tab', { hasText: 'Headroom: b64.pickle' }).first().click();
      await waitFor(
        'the hidden page to be discarded (no frame with a timeline plot)',
        async () => (await Promise.all(s.page.frames().map((x) => x.$('canvas.plot').catch(() => null)))).filter(Boolean).length,
        (plots) => plots === 0,
        { everyMs: 100 },
      );
      assert.ok(
        !(await Promise.all(s.page.frames().map((x) => x.$('canvas.plot').catch(() => null)))).some(Boolean),
        'the hidden page was kept',
      );
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      f = await timelineFrame(s.page);
      await f.waitForFunction(
        () => (window as unknown as { __timeline: { primary?: unknown } }).__timeline.primary !== undefined,
        undefined,
        { timeout: 60_000 },
      );
      const shown = await geometry(f);
      assert.deepEqual([shown.from, shown.to], [before.from, before.to]);
      // A window reload: the serializer brings the panel back, and it reopens its snapshot.
      await s.page.reload();
      await s.workbench.ready();
      f = await timelineFrame(s.page);
      await f.waitForFunction(
        () => (window as unknown as { __timeline: { primary?: unknown } }).__timeline.primary !== undefined,
        undefined,
        { timeout: 90_000 },
      );
      assert.match(await f.locator('h1').innerText(), /b64\.pickle · device 0 · 421 events/);
      assert.ok(Number(await f.locator('canvas.plot').getAttribute('data-drawn')) > 0);
    },
  );
});
