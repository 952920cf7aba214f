import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { formatBytes } from '../../extension/src/shared/format';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// An HF Trainer run recorded with `headroom run --modules on` on an H100 (test/fixtures/modules/).
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');

interface Mod {
  path: string;
  inclusive_bytes: number;
}

// Its frames are in the GPU host's environment; the workspace has a stand-in of the library file
// holding the most (same path under vendor/, mapped by headroom.pathMappings), with as many lines.
const SITE = '/opt/torch/.venv/lib/python3.12/site-packages';
const LIBRARY = 'transformers/models/gpt2/modeling_gpt2.py';

interface Line {
  file: string;
  line: number;
  self_bytes: number;
}

/** The library file's lines, from the CLI with that file counted as user code (not from the page). */
function libraryLines(): Line[] {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAPSHOT, '--include', `**/${LIBRARY}`, '--json', '--top', '0'],
    { encoding: 'utf8' },
  );
  return (JSON.parse(out) as { lines: Line[] }).lines.filter((l) => l.file === `${SITE}/${LIBRARY}`);
}

/** A stand-in for the library file: comment lines, as many as the frames need. */
const standIn = (lines: number): string =>
  Array.from({ length: lines }, (_, i) => `# stand-in for ${LIBRARY}, line ${i + 1}`).join('\n') + '\n';

/** The modules' bytes from the CLI (not from the page under test). */
function cliModules(): Map<string, number> {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAPSHOT, '--by', 'module', '--json'], {
    encoding: 'utf8',
  });
  return new Map((JSON.parse(out) as { by_module: { modules: Mod[] } }).by_module.modules.map((m) => [m.path, m.inclusive_bytes]));
}

describe('memory by module in the Headroom view', () => {
  let s: Session | undefined;
  const mods = cliModules();
  const lib = libraryLines();
  before(async () => {
    s = await Session.open({
      workspace: join(ROOT, 'demo', 'workspace'),
      files: [[SNAPSHOT, 'hf_trainer.pickle.gz']],
      settings: { 'headroom.pathMappings': { [SITE]: '${workspaceFolder}/vendor' } },
    });
    const vendored = join(s.workspace, 'vendor', LIBRARY);
    mkdirSync(join(vendored, '..'), { recursive: true });
    writeFileSync(vendored, standIn(Math.max(...lib.map((l) => l.line)) + 20));
    await s.activate('train_leaky.py');
  });
  after(async () => {
    await s?.close();
  });

  const rows = (s: Session) => s.page.locator('.pane-body .monaco-list-row');
  const expand = async (s: Session, label: string) => {
    const row = () =>
      rows(s)
        .filter({ has: s.page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) })
        .first();
    await row().waitFor({ timeout: 60_000 });
    // The tree may render again as the analysis lands (a click on the old row is lost): found afresh
    // each time, clicked again until it reads as expanded.
    for (let i = 0; ; i++) {
      if ((await row().getAttribute('aria-expanded')) === 'true') return;
      // A row's tooltip left open under the pointer (the tree re-rendered beneath it) covers the row
      // and keeps itself open while the pointer is on it: the pointer leaves until it closes.
      await s.page.mouse.move(0, 0);
      await s.page
        .locator('.context-view .hover-contents')
        .first()
        .waitFor({ state: 'hidden', timeout: 5000 })
        .catch(() => undefined);
      await row().click();
      const now = await waitFor(
        `${label} expanded`,
        () => row().getAttribute('aria-expanded'),
        (a) => a === 'true',
        {
          guardMs: 5000,
          returnLast: true,
        },
      );
      if (now === 'true') return;
      assert.ok(i < 10, `${label} never expanded`);
    }
  };
  const labels = async (s: Session) => (await rows(s).locator('.label-name').allInnerTexts()).map((t) => t.trim());

  e2e(
    'the By-module tree lists the model’s modules with their bytes, nested as in the model',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'hf_trainer.pickle.gz'));
      await s.page.locator('.activitybar .action-item a[aria-label^="Headroom"]').first().click();
      await expand(s, 'By module');
      const transformer = `${formatBytes(mods.get('transformer')!)} transformer`;
      await expand(s, transformer);
      const h = `${formatBytes(mods.get('transformer.h')!)} h`;
      await expand(s, h);
      // A row reads as expanded before the tree has rendered its children (they come from the host): read until they are there.
      const want = [
        `${formatBytes(mods.get('lm_head')!)} lm_head`,
        ...[0, 5].map((i) => `${formatBytes(mods.get(`transformer.h.${i}`)!)} ${i}`),
      ];
      const shown = await waitFor(
        `the rows ${want.join(', ')}`,
        () => labels(s),
        (l) => want.every((w) => l.includes(w)),
      );
      assert.ok(shown.includes(`${formatBytes(mods.get('lm_head')!)} lm_head`), JSON.stringify(shown));
      for (const i of [0, 5]) assert.ok(shown.includes(`${formatBytes(mods.get(`transformer.h.${i}`)!)} ${i}`), JSON.stringify(shown));
    },
  );

  e2e(
    'the summary page lists the modules with the same bytes, indented under their parents',
    () => s!,
    async (s) => {
      const page = webviewContent(s.page);
      for (const path of ['transformer', 'transformer.h.0', 'lm_head']) {
        const row = page.locator(`table.modules tr[data-module="${path}"]`);
        await row.waitFor({ timeout: 60_000 });
        assert.equal((await row.locator('td').first().innerText()).trim(), formatBytes(mods.get(path)!), path);
      }
      assert.equal((await page.locator('table.modules tr[data-module="transformer.h.0"] td').last().innerText()).trim(), '0');
    },
  );

  e2e(
    'the library file holding the most, opened from the workspace, shows its decorations',
    () => s!,
    async (s) => {
      const top = lib.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      await s.page.locator('.activitybar .action-item a[aria-label^="Explorer"]').first().click();
      await s.workbench.openFile('modeling_gpt2.py');
      await s.editor.goToLine(top.line);
      const decos = await s.editor.afterDecorationsWith(formatBytes(top.self_bytes));
      const onTop = decos.find((d) => d.line === top.line);
      assert.ok(onTop, `a decoration on line ${top.line}: ${JSON.stringify(decos)}`);
      assert.match(onTop.text, new RegExp(formatBytes(top.self_bytes).replace('.', '\\.')));
    },
  );
});
