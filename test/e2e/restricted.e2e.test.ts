import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';

const FIXTURE = join(__dirname, '..', 'fixtures', 'snapshots', 'shared', 'oom_plain.pickle');
const TRUTH = JSON.parse(readFileSync(FIXTURE.replace(/\.pickle$/, '.truth.json'), 'utf8')) as { requested_bytes_peak: number };

// Reading a snapshot executes nothing, so it must work in an untrusted folder too
// (capabilities.untrustedWorkspaces: limited).
describe('Headroom in Restricted Mode', () => {
  let s: Session | undefined;
  before(async () => {
    s = await Session.open({ workspace: join(__dirname, 'workspace'), files: [[FIXTURE, 'oom_plain.pickle']], restricted: true });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  e2e(
    'the folder is untrusted, and a snapshot still opens with PyTorch’s peak',
    () => s!,
    async (s) => {
      await s.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 60_000 });
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'oom_plain.pickle'));
      const peak = webviewContent(s.page).locator('[data-fact="peak"]');
      await peak.waitFor({ timeout: 60_000 });
      assert.equal(Number(await peak.getAttribute('data-bytes')), TRUTH.requested_bytes_peak);
    },
  );
});
