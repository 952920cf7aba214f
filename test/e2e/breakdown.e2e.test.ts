// The model code beneath the demo's model call (train_leaky.py:38, `logits = model(x)` in
// evaluate, 47.6 % of the peak), in the hover and on the summary page: the rows `headroom analyze`
// prints, each row's frame opening its library line.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { frameWith, hoverHeights, misfits } from './pages/layout';
import { waitFor } from './waitFor';

const DEMO = join(ROOT, 'demo', 'workspace');
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');
const LINE = 38;
// The capture's environment on the GPU host. Here, Sequential's file is an installed package outside
// the workspace (a site-packages folder of this machine), and ReLU's a copy in the workspace's
// vendor/ mapped by headroom.pathMappings: the two ways a library line can be opened.
const SITE = '/opt/torch/.venv/lib/python3.12/site-packages';
const CONTAINER = 'torch/nn/modules/container.py';
const ACTIVATION = 'torch/nn/modules/activation.py';
const LIB = join(mkdtempSync(join(tmpdir(), 'headroom-lib-')), 'venv', 'lib', 'python3.12', 'site-packages');

/** A stand-in for a torch file: comment lines, then `class NAME` whose forward holds line `at`. */
function standIn(what: string, cls: string, at: number): string {
  const head = Array.from({ length: at - 4 }, (_, i) => `# stand-in for ${what}, line ${i + 1}`);
  return [...head, `class ${cls}:`, '', '    def forward(self, input):', '        return input', '# (end)', ''].join('\n');
}

interface Row {
  depth: number;
  bytes: number;
  share: number;
  frames: { name: string; file: string; line: number }[];
}

/** The CLI's breakdown under the line, and its text rows (`133 MiB 100.0%  Sequential.forward  torch/…:253`): not from the page. */
function cli(path: string): { rows: Row[]; text: { bytes: string; share: string; names: string; where: string }[]; folded: string } {
  const json = JSON.parse(
    execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', path, '--json'], { encoding: 'utf8' }),
  ) as { lines: { file: string; line: number; breakdown?: Row[] }[] };
  const line = json.lines.find((l) => l.file.endsWith('/train_leaky.py') && l.line === LINE);
  assert.ok(line?.breakdown, 'the CLI breaks the model call down');
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', path], { encoding: 'utf8' }).split('\n');
  const at = out.findIndex((l) => l.includes(`train_leaky.py:${LINE} `));
  const folded = /in library code beneath it \(folded: (.*)\):$/.exec(out[at + 1]!)?.[1] ?? '';
  const text = out.slice(at + 2, at + 2 + line.breakdown.length).map((l) => {
    const m = /^\s+(\S+ \S+)\s+(\S+%)\s{2}(.+?)\s{2}(\S+:\d+)$/.exec(l);
    assert.ok(m, l);
    return { bytes: m[1]!, share: m[2]!, names: m[3]!, where: m[4]! };
  });
  return { rows: line.breakdown, text, folded };
}

/**
 * The editor reads sources through headroom.pathMappings too, so it names ReLU from the vendored
 * copy, where the CLI (no mappings) falls back to the module's name.
 */
const inEditor = (names: string): string => names.replace('activation.forward', 'ReLU.forward');

const shot = async (s: Session, name: string): Promise<string> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `breakdown-${name}.png`);
  await s.page.screenshot({ path });
  return path;
};

describe('the breakdown under the model call', () => {
  let s: Session | undefined;
  let summary: Frame;
  let expected: ReturnType<typeof cli>;
  const paths: string[] = [];

  before(async () => {
    s = await Session.open({ workspace: DEMO, settings: { 'headroom.pathMappings': { [SITE]: '${workspaceFolder}/vendor' } } });
    const tmp = mkdtempSync(join(tmpdir(), 'headroom-breakdown-'));
    execFileSync('python3', [
      join(ROOT, 'demo', 'map_frames.py'),
      SNAPSHOT,
      join(tmp, 'mapped.pickle'),
      'train_leaky.py',
      join(s.workspace, 'train_leaky.py'),
    ]);
    execFileSync('python3', [
      join(ROOT, 'test', 'reference', 'reprefix.py'),
      join(tmp, 'mapped.pickle'),
      join(s.workspace, 'leaky_demo.pickle'),
      `${SITE}/${CONTAINER}`,
      `${LIB}/${CONTAINER}`,
    ]);
    mkdirSync(dirname(join(LIB, CONTAINER)), { recursive: true });
    writeFileSync(join(LIB, CONTAINER), standIn(CONTAINER, 'Sequential', 253));
    const vendored = join(s.workspace, 'vendor', ACTIVATION);
    mkdirSync(dirname(vendored), { recursive: true });
    writeFileSync(vendored, standIn(ACTIVATION, 'ReLU', 143));
    expected = cli(join(s.workspace, 'leaky_demo.pickle'));
    await s.activate('train_leaky.py');
  });
  after(async () => {
    if (paths.length) console.log(`breakdown screenshots:\n${paths.join('\n')}`);
    await s?.close();
  });

  e2e(
    'the CLI: Sequential’s forward holds the whole line, ReLU’s beneath it',
    () => s!,
    async () => {
      // Sequential is named from the file on this machine; ReLU's file is not at the frame's path here
      // (the editor finds it through the path mapping: inEditor).
      assert.deepEqual(
        expected.text.map((t) => [t.names, t.where, t.share]),
        [
          ['Sequential.forward', `${CONTAINER}:253`, '100.0%'],
          ['activation.forward › functional.relu', `${ACTIVATION}:143`, expected.text[1]!.share],
        ],
      );
      assert.equal(expected.folded, 'nn.Module call');
    },
  );

  e2e(
    'the summary shows the rows under the line, a row’s frame opens its line (read-only outside the workspace)',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'leaky_demo.pickle'));
      summary = await frameWith(s.page, 'tr.breakdown');
      const shown = await summary.evaluate(() =>
        [...document.querySelectorAll('tr.breakdown')].map((b) => ({
          line: (b as HTMLElement).dataset.line,
          head: b.querySelector('.breakdown-head span')?.textContent,
          rows: [...b.querySelectorAll('table.breakdown-rows tr')].map((tr) => ({
            depth: Number((tr as HTMLElement).dataset.depth),
            bytes: Number((tr as HTMLElement).dataset.bytes),
            cells: [...tr.querySelectorAll('td.bytes')].map((td) => td.textContent),
            names: tr.querySelector('td.frame')?.firstChild?.textContent,
            where: tr.querySelector('td.frame a')?.textContent,
            indent: parseFloat(getComputedStyle(tr.querySelector('td.frame')!).paddingLeft),
          })),
        })),
      );
      assert.equal(shown.length, 1, JSON.stringify(shown));
      const b = shown[0]!;
      assert.equal(b.line, `${join(s.workspace, 'train_leaky.py')}:${LINE}`);
      // Right under the line's own row.
      const prev = await summary.evaluate(
        () => document.querySelector('tr.breakdown')!.previousElementSibling!.querySelector('a')!.textContent,
      );
      assert.equal(prev, `train_leaky.py:${LINE}`);
      assert.equal(b.head, `in library code beneath it (folded: ${expected.folded}):`);
      assert.deepEqual(
        b.rows.map((r) => ({ depth: r.depth, bytes: r.bytes, cells: r.cells, names: r.names, where: r.where })),
        expected.rows.map((r, i) => ({
          depth: r.depth,
          bytes: r.bytes,
          cells: [expected.text[i]!.bytes, expected.text[i]!.share],
          names: inEditor(expected.text[i]!.names),
          where: expected.text[i]!.where,
        })),
      );
      assert.ok(b.rows[1]!.indent > b.rows[0]!.indent, 'a deeper row is indented');
      assert.deepEqual((await misfits(summary, 'tr.breakdown td.bytes', 'table')).bad, []);
      paths.push(await shot(s, 'summary'));

      // Sequential's file: an installed package here, outside the workspace: opened at its line, read-only.
      const before = readFileSync(join(LIB, CONTAINER), 'utf8');
      await summary.locator('table.breakdown-rows a', { hasText: 'container.py:253' }).click();
      const tab = s.page.locator('.editor-group-container.active .tab.active[data-resource-name="container.py"]');
      await tab.waitFor({ timeout: 30_000 });
      await s.page.waitForFunction(() => document.querySelector('.editor-group-container.active .editor-instance .current-line') !== null);
      const status = await s.page
        .locator('.statusbar-item', { hasText: /Ln \d+/ })
        .first()
        .innerText();
      assert.match(status, /Ln 253\b/);
      await s.page.keyboard.type('x');
      await s.page.waitForTimeout(500);
      assert.equal(readFileSync(join(LIB, CONTAINER), 'utf8'), before);
      assert.equal(await tab.evaluate((t) => t.classList.contains('dirty')), false, 'the library file takes no edit');
      // ReLU's: the workspace's copy, by the path mapping.
      await summary.locator('table.breakdown-rows a', { hasText: 'activation.py:143' }).click();
      await s.page.locator('.editor-group-container.active .tab.active[data-resource-name="activation.py"]').waitFor({ timeout: 30_000 });
      assert.match(
        await s.page
          .locator('.statusbar-item', { hasText: /Ln \d+/ })
          .first()
          .innerText(),
        /Ln 143\b/,
      );
    },
  );

  e2e(
    'the hover of the model call shows the same rows, compact; the vendored frame is a link',
    () => s!,
    async (s) => {
      await s.workbench.openFile('train_leaky.py');
      await s.editor.afterDecorationsWith('▲');
      const text = (await s.editor.hover(LINE)).replace(/\u00a0/g, ' ');
      assert.match(text, new RegExp(`in library code beneath it \\(folded: ${expected.folded}\\):`));
      // The hover is narrow: a row names its frame's file by its name.
      for (const [i, r] of expected.text.entries()) {
        const row = `${r.bytes} ${r.share} ${inEditor(r.names)} · ${r.where.split('/').pop()}`;
        assert.ok(text.includes(row), `row ${i} "${row}" in\n${text}`);
      }
      // The depth-1 row is indented under the depth-0 one.
      const lines = text.split('\n');
      const indent = (where: string) => /^ */.exec(lines.find((l) => l.includes(where.split('/').pop()!))!)![0].length;
      assert.ok(indent(expected.text[1]!.where) > indent(expected.text[0]!.where), text);
      // Its stack takes one line then (the rows say what is beneath the line), and the hover stays within half the editor.
      assert.match(text, /stack of the largest, innermost first: train_leaky\.py:38 evaluate \(via \d+ library frames\)/);
      const h = await hoverHeights(s.page);
      assert.ok(h.hover > 0 && h.hover <= h.editor / 2, `hover ${h.hover}px vs editor ${h.editor}px`);
      paths.push(await shot(s, 'hover'));
      // ReLU's row links to the workspace copy; the hover's markdown gives no other kind of link.
      const link = s.page.locator('.monaco-hover-content a', { hasText: 'activation.py:143' });
      assert.equal(await link.count(), 1);
      await link.click();
      await s.page.locator('.editor-group-container.active .tab.active[data-resource-name="activation.py"]').waitFor({ timeout: 30_000 });
    },
  );

  it('the hover’s link to an installed package’s line (outside the workspace) opens it read-only', async () => {
    const ses = s!;
    try {
      await ses.workbench.openFile('train_leaky.py');
      await ses.editor.hover(LINE);
      const link = ses.page.locator('.monaco-hover-content a', { hasText: 'container.py:253' });
      await waitFor(
        'the hover link to container.py:253',
        () => link.count(),
        (n) => n > 0,
        { everyMs: 100 },
      );
      assert.equal(await link.count(), 1, 'the row of an installed package’s file is a link');
      await link.click();
      await ses.page.locator('.editor-group-container.active .tab.active[data-resource-name="container.py"]').waitFor({ timeout: 30_000 });
      assert.match(
        await ses.page
          .locator('.statusbar-item', { hasText: /Ln \d+/ })
          .first()
          .innerText(),
        /Ln 253\b/,
      );
    } catch (e) {
      const dir = await ses.saveArtifacts('hover link');
      (e as Error).message += `\n(screenshot and logs: ${dir})`;
      throw e;
    }
  });

  e2e(
    'the summary’s Flame graph button opens the flame graph',
    () => s!,
    async (s) => {
      await summary.locator('tr.breakdown button.flame').click();
      const tab = s.page.locator('.tab .label-name', { hasText: 'Memory Flame Graph' });
      await waitFor(
        'the Memory Flame Graph tab',
        () => tab.count(),
        (n) => n > 0,
      );
      assert.ok(
        await tab.count(),
        `no flame graph tab; log:\n${s
          .log('Headroom.log')
          .split('\n')
          .filter((l) => /flame/.test(l))
          .join('\n')}`,
      );
    },
  );
});
