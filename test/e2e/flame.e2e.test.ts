import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { clickFrame, flameFrame, flameState } from './pages/flame';
import { timelineFrame } from './pages/timeline';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// The demo's real capture (H200): its frames name /work/main/demo/workspace/train_leaky.py, which
// the path mapping finds in the copy of demo/workspace the session opens.
const DEMO = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');

interface TreeJson {
  kind: string;
  name: string;
  file?: string;
  line?: number;
  bytes: number;
  children?: TreeJson[];
}

/** The call tree `headroom analyze --json` prints for `snapshot` (at the peak, or at event `at`). */
function cliTree(at?: number, snapshot = DEMO): TreeJson {
  const args = [join(ROOT, 'dist', 'cli.js'), 'analyze', snapshot, '--json', ...(at !== undefined ? ['--at', String(at)] : [])];
  return (JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as { tree: TreeJson }).tree;
}

function* walk(n: TreeJson): Generator<TreeJson> {
  yield n;
  for (const c of n.children ?? []) yield* walk(c);
}

/** The largest frame of `evaluate` (the demo's leaking function), from the CLI. */
const tree = cliTree();
const evaluate = [...walk(tree)]
  .filter((n) => n.kind === 'user' && n.name.endsWith('evaluate') && n.file?.endsWith('/train_leaky.py'))
  .sort((a, b) => b.bytes - a.bytes)[0]!;
const train = [...walk(tree)]
  .filter((n) => n.kind === 'user' && n.name.endsWith('train') && n.file?.endsWith('/train_leaky.py'))
  .sort((a, b) => b.bytes - a.bytes)[0]!;

const UNIT: Record<string, number> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };

/** The editor's cursor position (the status bar's), once it is on `line`. */
const caretLine = async (s: Session, line: number) => {
  const where = s.page.locator('.statusbar-item[id="status.editor.selection"]');
  await waitFor(
    `the cursor on line ${line}`,
    () => where.innerText(),
    (t) => t.includes(`Ln ${line},`),
    { everyMs: 100 },
  );
  return where.innerText();
};

describe('memory flame graph', () => {
  let s: Session | undefined;
  let f: Frame;
  /** The drawn frame for a CLI node (same label and line). */
  const boxOf = async (n: TreeJson) => (await flameState(f)).boxes.find((b) => b.label === n.name && b.line === n.line);

  before(async () => {
    s = await Session.open({ workspace: join(ROOT, 'demo', 'workspace'), files: [[DEMO, 'leaky_demo.pickle']] });
    await s.activate('train_leaky.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'opens from the command palette, at the peak, with the CLI’s total',
    () => s!,
    async (s) => {
      assert.ok(evaluate && train, 'the demo capture has evaluate and train frames');
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'leaky_demo.pickle'));
      await webviewContent(s.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
      await s.workbench.runCommand('Headroom: Show Memory Flame Graph');
      f = await flameFrame(s.page);
      const st = await flameState(f);
      assert.equal(st.instant, 'at peak');
      assert.equal(await f.locator('.instant').innerText(), 'at peak');
      assert.equal(st.total, tree.bytes);
      assert.deepEqual(st.path, [tree.name]);
      // The top spans the width; user and library frames are drawn, in the theme's colours.
      const width = await f.locator('canvas.frames').evaluate((c) => c.clientWidth);
      assert.equal(st.boxes[0]!.w, width);
      assert.ok(await boxOf(evaluate), `evaluate:${evaluate.line} is drawn`);
      assert.ok(
        st.boxes.some((b) => b.file.includes('site-packages/torch/')),
        'library frames are drawn',
      );
    },
  );

  e2e(
    'search finds evaluate: count and bytes; Enter goes to the match',
    () => s!,
    async (s) => {
      const search = f.locator('input.search');
      await search.fill('EVALUATE');
      const matches = [...walk(tree)].filter(
        (n) => n.name.toLowerCase().includes('evaluate') || (n.file ?? '').toLowerCase().includes('evaluate'),
      );
      const found = await f.locator('.found').innerText();
      const m = /^(\d+) frames? match: (\d+(?:\.\d+)?) (B|KiB|MiB|GiB)/.exec(found);
      assert.ok(m, found);
      assert.equal(Number(m[1]), matches.length);
      const bytes = matches.filter((n) => !matches.some((o) => o !== n && [...walk(o)].includes(n))).reduce((x, n) => x + n.bytes, 0);
      assert.ok(Math.abs(Number(m[2]) * UNIT[m[3]!]! - bytes) <= 0.01 * bytes, `${found} vs ${bytes} B`);
      await search.press('Enter');
      const said = await f.locator('.sr-status').innerText();
      assert.match(said, /evaluate, \d+(\.\d+)? (B|KiB|MiB|GiB), \d+\.\d% of live memory, your code, train_leaky\.py:\d+/);
      await search.press('Escape');
    },
  );

  e2e(
    'clicking a frame zooms into it, with its callers as a breadcrumb; a crumb zooms out',
    () => s!,
    async (s) => {
      await clickFrame(f, (await boxOf(evaluate))!);
      let st = await flameState(f);
      assert.equal(st.path.at(-1), evaluate.name);
      const zoomed = st.boxes.find((b) => b.label === evaluate.name && b.line === evaluate.line)!;
      assert.equal(zoomed.x, 0);
      assert.equal(zoomed.w, st.boxes[0]!.w);
      const crumbs = await f.locator('.crumbs .crumb').allInnerTexts();
      assert.deepEqual(crumbs, st.path);
      assert.equal(await f.locator('.crumbs .crumb.current').innerText(), evaluate.name);
      assert.equal(await f.locator('.crumbs .crumb.current').getAttribute('aria-current'), 'location');
      await f.locator('.crumbs button.crumb').first().click();
      st = await flameState(f);
      assert.deepEqual(st.path, [tree.name]);
      assert.ok(
        !st.boxes.some((b) => b.depth > 0 && b.w === st.boxes[0]!.w && b.bytes < tree.bytes),
        'zoomed out: only the top spans the width',
      );
      mkdirSync(ARTIFACTS, { recursive: true });
      await s.page.screenshot({ path: join(ARTIFACTS, 'flame.png') });
    },
  );

  e2e(
    'Enter on a user frame, and "Go to source", open train_leaky.py at the frame’s line',
    () => s!,
    async (s) => {
      const search = f.locator('input.search');
      await search.fill('evaluate');
      await search.press('Enter');
      await f.locator('.graph').focus();
      assert.match(await f.locator('.details').innerText(), new RegExp(`train_leaky\\.py:${evaluate.line}`));
      await s.page.keyboard.press('Enter');
      await s.page.locator('.editor-group-container .tab.active[data-resource-name="train_leaky.py"]').first().waitFor({ timeout: 30_000 });
      assert.match(await caretLine(s, evaluate.line!), new RegExp(`Ln ${evaluate.line}, Col 1`));
      // Another frame, zoomed into (and so selected) with a click, opened with the button.
      f = await flameFrame(s.page);
      await clickFrame(f, (await boxOf(train))!);
      assert.match(await f.locator('.details').innerText(), new RegExp(`train_leaky\\.py:${train.line}`));
      await f.locator('button', { hasText: 'Go to source' }).click();
      assert.match(await caretLine(s, train.line!), new RegExp(`Ln ${train.line}, Col 1`));
    },
  );

  e2e(
    'the keyboard: Down, Up, Escape and / move around and say where they are',
    () => s!,
    async (s) => {
      f = await flameFrame(s.page);
      await f.locator('input.search').fill('');
      await f.locator('.graph').focus();
      await s.page.keyboard.press('Escape');
      await s.page.keyboard.press('Escape');
      await s.page.keyboard.press('Home');
      assert.match(await f.locator('.sr-status').innerText(), /^all live memory, /);
      await s.page.keyboard.press('ArrowDown');
      const first = (await flameState(f)).boxes.filter((b) => b.depth === 1).sort((a, b) => a.x - b.x)[0]!;
      assert.match(await f.locator('.sr-status').innerText(), new RegExp(`^${first.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, `));
      await s.page.keyboard.press('ArrowUp');
      assert.match(await f.locator('.sr-status').innerText(), /^all live memory, /);
      await s.page.keyboard.press('/');
      assert.equal(await f.evaluate(() => document.activeElement?.className), 'search');
    },
  );

  e2e(
    'it follows the instant the timeline sets, and the timeline’s button opens it there',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      let t = await timelineFrame(s.page);
      type Tl = { __timeline: { primary?: unknown; init: { instant: { index: number }; peak: { index: number } } } };
      await t.waitForFunction(() => (window as unknown as Tl).__timeline.primary !== undefined, undefined, { timeout: 60_000 });
      // The keyboard cursor to the peak, then well before it; Enter sets the instant there.
      await t.locator('canvas.plot').focus();
      await s.page.keyboard.press('p');
      for (let i = 0; i < 8; i++) await s.page.keyboard.press('Shift+ArrowLeft');
      await s.page.keyboard.press('Enter');
      const handle = await t.waitForFunction(
        () => {
          const tl = (window as unknown as Tl).__timeline;
          return tl.init.instant.index !== tl.init.peak.index ? tl.init.instant.index : undefined;
        },
        undefined,
        { timeout: 30_000 },
      );
      const at = (await handle.jsonValue()) as number;
      const expected = cliTree(at).bytes;
      // The flame graph, shown again, is at that instant.
      await s.page.locator('.tab', { hasText: 'Memory Flame Graph' }).first().click();
      f = await flameFrame(s.page);
      await f.waitForFunction(
        (label) => (window as unknown as { __flame: { init: { instantLabel: string } } }).__flame.init.instantLabel === label,
        `at event #${at}`,
        { timeout: 30_000 },
      );
      assert.equal((await flameState(f)).total, expected);
      assert.equal(await f.locator('.instant').innerText(), `at event #${at}`);
      // Closed, then opened from the (new) timeline's toolbar: at the timeline's instant.
      await s.workbench.runCommand('View: Close All Editors');
      await s.workbench.runCommand('Headroom: Show Memory Timeline');
      t = await timelineFrame(s.page);
      await t.waitForFunction((k) => (window as unknown as Tl).__timeline.init?.instant.index === k, at, { timeout: 30_000 });
      await t.locator('button', { hasText: 'Flame graph' }).click();
      f = await flameFrame(s.page);
      const st = await flameState(f);
      assert.equal(st.instant, `at event #${at}`);
      assert.equal(st.total, expected);
    },
  );
});

// A library frame, as breakdown.e2e.test.ts sets it up: the capture's container.py (the demo
// model's Sequential) points at a stand-in site-packages folder of this machine, outside the
// workspace, whose file has `class Sequential` with its forward at the recorded line. The call tree
// names the frame from that source (Sequential.forward), and its line opens read-only.
const SITE = '/opt/torch/.venv/lib/python3.12/site-packages';
const CONTAINER = 'torch/nn/modules/container.py';
const CONTAINER_LINE = 253;
const LIB = join(mkdtempSync(join(tmpdir(), 'headroom-lib-')), 'venv', 'lib', 'python3.12', 'site-packages');

/** A stand-in for a torch file: comment lines, then `class NAME` whose forward holds line `at`. */
function standIn(what: string, cls: string, at: number): string {
  const head = Array.from({ length: at - 4 }, (_, i) => `# stand-in for ${what}, line ${i + 1}`);
  return [...head, `class ${cls}:`, '', '    def forward(self, input):', '        return input', '# (end)', ''].join('\n');
}

describe('memory flame graph: a library frame (an installed package outside the workspace)', () => {
  let s: Session | undefined;
  let f: Frame;
  let snapshot: string;
  let sequential: TreeJson[];

  before(async () => {
    s = await Session.open({ workspace: join(ROOT, 'demo', 'workspace') });
    snapshot = join(s.workspace, 'leaky_demo.pickle');
    execFileSync('python3', [
      join(ROOT, 'test', 'reference', 'reprefix.py'),
      DEMO,
      snapshot,
      `${SITE}/${CONTAINER}`,
      `${LIB}/${CONTAINER}`,
    ]);
    mkdirSync(dirname(join(LIB, CONTAINER)), { recursive: true });
    writeFileSync(join(LIB, CONTAINER), standIn(CONTAINER, 'Sequential', CONTAINER_LINE));
    sequential = [...walk(cliTree(undefined, snapshot))].filter(
      (n) => n.name.toLowerCase().includes('sequential') || (n.file ?? '').toLowerCase().includes('sequential'),
    );
    await s.activate('train_leaky.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'search for the class name Sequential finds its forward, a library frame',
    () => s!,
    async (s) => {
      // The CLI names the frame from the stand-in's class (the capture names only the function).
      assert.ok(sequential.length >= 1, 'the CLI has a Sequential frame');
      for (const n of sequential) {
        assert.equal(n.kind, 'library');
        assert.equal(n.name, 'Sequential.forward');
        assert.equal(n.file, `${LIB}/${CONTAINER}`);
        assert.equal(n.line, CONTAINER_LINE);
      }
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(snapshot);
      await webviewContent(s.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
      await s.workbench.runCommand('Headroom: Show Memory Flame Graph');
      f = await flameFrame(s.page);
      const search = f.locator('input.search');
      await search.fill('Sequential');
      const found = await f.locator('.found').innerText();
      const m = /^(\d+) frames? match/.exec(found);
      assert.ok(m, found);
      assert.ok(Number(m[1]) >= 1, found);
      assert.equal(Number(m[1]), sequential.length, found);
      // Enter goes to the first match: the page says it is Sequential.forward, library code, at its line.
      await search.press('Enter');
      assert.match(
        await f.locator('.sr-status').innerText(),
        new RegExp(`^Sequential\\.forward, .*, library code, container\\.py:${CONTAINER_LINE}$`),
      );
      assert.match(await f.locator('.details strong').innerText(), /Sequential\.forward/);
      assert.match(await f.locator('.details').innerText(), new RegExp(`${CONTAINER.replace(/\./g, '\\.')}:${CONTAINER_LINE}`));
      const drawn = (await flameState(f)).boxes.filter((b) => b.label.includes('Sequential.forward'));
      assert.ok(drawn.length >= 1, 'a Sequential.forward frame is drawn');
      assert.ok(
        drawn.every((b) => b.file === `${LIB}/${CONTAINER}` && b.line === CONTAINER_LINE),
        JSON.stringify(drawn),
      );
    },
  );

  /** container.py active at the recorded line, and read-only: a key typed there edits nothing and VS Code says why. */
  const openedReadOnly = async (s: Session) => {
    const before = readFileSync(join(LIB, CONTAINER), 'utf8');
    const tab = s.page.locator('.editor-group-container.active .tab.active[data-resource-name="container.py"]');
    await tab.waitFor({ timeout: 30_000 });
    assert.match(await caretLine(s, CONTAINER_LINE), new RegExp(`Ln ${CONTAINER_LINE}, Col 1`));
    await s.page.waitForFunction(
      () => document.querySelector('.editor-group-container.active .editor-instance .current-line') !== null,
      undefined,
      { timeout: 30_000 },
    );
    await s.page.keyboard.type('x');
    const said = s.page.locator('.monaco-editor-overlaymessage', { hasText: /read-only/ });
    await said.first().waitFor({ timeout: 10_000 });
    assert.match(await said.first().innerText(), /read-only in this session/);
    assert.equal(readFileSync(join(LIB, CONTAINER), 'utf8'), before);
    assert.equal(await tab.evaluate((t) => t.classList.contains('dirty')), false, 'the library file takes no edit');
    return tab;
  };

  e2e(
    'Enter on it, and "Go to source", open container.py at the recorded line, read-only',
    () => s!,
    async (s) => {
      await f.locator('.graph').focus();
      assert.match(await f.locator('.sr-status').innerText(), /^Sequential\.forward, /);
      await s.page.keyboard.press('Enter');
      const tab = await openedReadOnly(s);
      // Closed, then the last Sequential match opened with the button.
      await tab.locator('.codicon-close-small').click();
      await tab.waitFor({ state: 'detached', timeout: 30_000 });
      f = await flameFrame(s.page);
      const search = f.locator('input.search');
      await search.fill('');
      await search.fill('Sequential');
      // Enter walks the matches: the last is the one shown after as many presses as there are.
      for (let i = 0; i < sequential.length; i++) await search.press('Enter');
      assert.match(
        await f.locator('.sr-status').innerText(),
        new RegExp(`^Sequential\\.forward, .*, library code, container\\.py:${CONTAINER_LINE}$`),
      );
      if (sequential.length > 1)
        assert.match(await f.locator('.found').innerText(), new RegExp(`\\(${sequential.length} of ${sequential.length}\\)$`));
      await f.locator('button', { hasText: 'Go to source' }).click();
      await openedReadOnly(s);
    },
  );
});
