import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// Issue 40: a large snapshot shows its peak and top lines while it is still being read, and the
// read can be cancelled. The snapshot is a real capture of the workspace's train.py (H200)
// repeated to 2M events (about 100 MB, bench/synth_big.py): several seconds to read here.
const B64 = join(ROOT, 'test', 'fixtures', 'snapshots', 'e2e_train_b64.pickle');
const BIG = join(mkdtempSync(join(tmpdir(), 'headroom-progressive-')), 'big.pickle');
execFileSync('python3', [join(ROOT, 'bench', 'synth_big.py'), B64, BIG, '2000000']);

/** The progress toast's text once it names the peak so far, with the bytes read then. */
const PARTIAL =
  /Reading (big\d?\.pickle).*?([\d.]+ [KMG]?i?B) of ([\d.]+ [KMG]?i?B) · peak so far ([\d.]+ [KMG]?i?B) \(([\d,]+) events read\): (.*)/;

describe('a large snapshot, read progressively', () => {
  let s: Session | undefined;
  /** How long the whole read and summary of big.pickle took (the first test). */
  let fullMs = 0;
  before(async () => {
    s = await Session.open({
      workspace: join(__dirname, 'workspace'),
      files: [
        [BIG, 'big.pickle'],
        [BIG, 'big2.pickle'],
      ],
    });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  const open = async (s: Session, name: string) => {
    await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
    await s.workbench.answerFileDialog(join(s.workspace, name));
    return waitFor(
      `the progress of ${name} naming the peak so far`,
      async () => (await s.workbench.notifications()).map((n) => PARTIAL.exec(n)).find((m) => m?.[1] === name),
      (m) => m !== undefined,
      { everyMs: 50 },
    );
  };
  const peaksShown = async (s: Session) => {
    const out: number[] = [];
    for (let i = 0; i < (await s.page.locator('iframe.webview.ready').count()); i++) {
      const peak = webviewContent(s.page, i).locator('[data-fact="peak"]');
      if (await peak.count()) out.push(Number(await peak.getAttribute('data-bytes')));
    }
    return out;
  };

  e2e(
    'the peak so far and the top lines (train.py) show while the file is read; the summary follows',
    () => s!,
    async (s) => {
      const t0 = Date.now();
      const m = (await open(s, 'big.pickle'))!;
      const [, , read, total, , events, lines] = m;
      // Shown before the read ended: less than the whole file read, and no summary yet.
      assert.notEqual(read, total, m[0]);
      assert.ok(Number(events!.replace(/,/g, '')) < 2_000_000, m[0]);
      assert.match(lines!, /train\.py:\d+ [\d.]+ [KMG]?i?B/, m[0]);
      const peaks = await waitFor(
        'the summary of big.pickle',
        () => peaksShown(s),
        (p) => p.length > 0,
        { guardMs: 300_000 },
      );
      assert.ok(peaks[0]! > 0);
      fullMs = Date.now() - t0;
    },
  );

  e2e(
    'cancel stops the read: the toast closes, no summary opens and nothing is said to be wrong',
    () => s!,
    async (s) => {
      const before = (await peaksShown(s)).length;
      await open(s, 'big2.pickle');
      await s.page.locator('.notification-toast', { hasText: 'big2.pickle' }).getByRole('button', { name: 'Cancel' }).click();
      await waitFor(
        'the toast of big2.pickle to close',
        async () => (await s.workbench.notifications()).filter((n) => n.includes('big2.pickle')),
        (n) => n.length === 0,
      );
      // As long again as the whole read of the same file took, and still no new summary or error.
      await s.page.waitForTimeout(fullMs + 5000);
      assert.equal((await peaksShown(s)).length, before);
      assert.deepEqual(
        (await s.workbench.notifications()).filter((n) => /big2|cannot open/i.test(n)),
        [],
      );
    },
  );
});
