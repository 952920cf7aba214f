import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { formatBytes } from '../../extension/src/core/format';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';

// An HF Trainer run recorded with `headroom run --modules on` on an H100 (test/fixtures/modules/).
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');

interface Mod {
  path: string;
  inclusive_bytes: number;
}

/** The modules' bytes from the CLI (not from the page under test). */
function cliModules(): Map<string, number> {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAPSHOT, '--by', 'module', '--json'], { encoding: 'utf8' });
  return new Map((JSON.parse(out) as { by_module: { modules: Mod[] } }).by_module.modules.map((m) => [m.path, m.inclusive_bytes]));
}

describe('memory by module in the Headroom view', () => {
  let s: Session | undefined;
  const mods = cliModules();
  before(async () => {
    s = await Session.open({ workspace: join(ROOT, 'demo', 'workspace'), files: [[SNAPSHOT, 'hf_trainer.pickle.gz']] });
    await s.activate('train_leaky.py');
  });
  after(async () => {
    await s?.close();
  });

  const rows = (s: Session) => s.page.locator('.pane-body .monaco-list-row');
  const expand = async (s: Session, label: string) => {
    const row = rows(s).filter({ has: s.page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
    await row.waitFor({ timeout: 60_000 });
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
    await s.page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true', await row.elementHandle(), { timeout: 30_000 });
  };
  const labels = async (s: Session) => (await rows(s).locator('.label-name').allInnerTexts()).map((t) => t.trim());

  e2e('the By-module tree lists the model’s modules with their bytes, nested as in the model', () => s!, async (s) => {
    await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
    await s.workbench.answerFileDialog(join(s.workspace, 'hf_trainer.pickle.gz'));
    await s.page.locator('.activitybar .action-item a[aria-label^="Headroom"]').first().click();
    await expand(s, 'By module');
    const transformer = `${formatBytes(mods.get('transformer')!)} transformer`;
    await expand(s, transformer);
    const h = `${formatBytes(mods.get('transformer.h')!)} h`;
    await expand(s, h);
    const shown = await labels(s);
    assert.ok(shown.includes(`${formatBytes(mods.get('lm_head')!)} lm_head`), JSON.stringify(shown));
    for (const i of [0, 5]) assert.ok(shown.includes(`${formatBytes(mods.get(`transformer.h.${i}`)!)} ${i}`), JSON.stringify(shown));
  });
});
