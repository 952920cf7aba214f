import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

const FIXTURE = join(__dirname, '..', 'fixtures', 'snapshots', 'shared', 'mlp_train.pickle');
const TRUTH = JSON.parse(readFileSync(FIXTURE.replace(/\.pickle$/, '.truth.json'), 'utf8')) as {
  requested_bytes_peak: number;
  requested_bytes_current: number;
};

describe('Headroom in a real VS Code (code-server)', () => {
  let s: Session | undefined;
  const session = (): Session => s!;

  before(async () => {
    s = await Session.open({ workspace: join(__dirname, 'workspace'), files: [[FIXTURE, 'mlp_train.pickle']] });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e('the extension activated without an error in the extension host log', session, async (s) => {
    const headroom = await s.waitForLog('headroom-dev.torch-headroom/Headroom.log', /activated/);
    assert.match(headroom, /Headroom \S+ activated/);
    const host = s.log('remoteexthost.log');
    assert.match(host, /_doActivateExtension headroom-dev\.torch-headroom/);
    const errors = host.split('\n').filter((l) => /\[error\]/i.test(l) && /headroom/i.test(l));
    assert.deepEqual(errors, []);
    assert.doesNotMatch(host, /Activating extension .?headroom-dev\.torch-headroom.? failed/i);
  });

  e2e('the command is in the palette, under the Headroom category', session, async (s) => {
    const labels = await s.workbench.paletteLabels('Headroom: Open Memory');
    assert.ok(labels.includes('Headroom: Open Memory Snapshot…'), `palette shows: ${labels.join(' | ')}`);
  });

  e2e('opening a snapshot shows its summary with PyTorch’s peak', session, async (s) => {
    await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
    await s.workbench.answerFileDialog(join(s.workspace, 'mlp_train.pickle'));
    const view = webviewContent(s.page);
    const peak = view.locator('[data-fact="peak"]');
    await peak.waitFor({ timeout: 60_000 });
    assert.equal(Number(await peak.getAttribute('data-bytes')), TRUTH.requested_bytes_peak);
    assert.equal(Number(await view.locator('[data-fact="end"]').getAttribute('data-bytes')), TRUTH.requested_bytes_current);
    assert.match(await peak.innerText(), /^\d+(\.\d+)? (MiB|GiB|KiB)$/);
    assert.ok((await view.locator('table tr').count()) > 0, 'lines are listed');
  });

  e2e("the integrated terminal has the headroom command (the extension's own CLI)", session, async (s) => {
    const out = join(s.workspace, 'headroom-version.txt');
    await s.workbench.runCommand('Terminal: Create New Terminal');
    await s.page.locator('.terminal-wrapper.active .xterm').waitFor({ timeout: 30_000 });
    await s.page.waitForTimeout(1500);
    await s.page.keyboard.type('headroom --version > headroom-version.txt 2>&1\n', { delay: 20 });
    const version = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version as string;
    const text = await waitFor(
      'a whole line in headroom-version.txt',
      () => (existsSync(out) ? readFileSync(out, 'utf8') : ''),
      (t) => t.endsWith('\n'),
      { everyMs: 100 },
    );
    assert.equal(text, `headroom ${version}\n`);
  });
});
