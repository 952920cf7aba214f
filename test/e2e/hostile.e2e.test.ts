import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// train.py's line 24 (`x = torch.randn(...)`) holds the crafted snapshot's largest block; its
// frames are under /cluster/jobs/7, mapped onto the workspace by headroom.pathMappings.
const LINE = 24;
const REMOTE = '/cluster/jobs/7';

/** Every link target in a rendered hover or page: href and VS Code's data-href. */
const linksIn = (sel: string) =>
  [...document.querySelectorAll(`${sel} a`)].flatMap((a) =>
    [a.getAttribute('href'), a.getAttribute('data-href')].filter((h): h is string => !!h && h !== '#' && h !== ''),
  );

/**
 * The editor's own requests off code-server's origin: webview resources (a service worker serves
 * them from the installed extension; the host name is VS Code's convention) and the workbench's
 * extension gallery query. Anything else left the page.
 */
const EDITOR_OWN = [
  /^https:\/\/[\w+-]+\.vscode-resource\.vscode-cdn\.net\/.*\/extensions\/headroom-dev\.torch-headroom-[^/]+\/dist\//,
  /^https:\/\/open-vsx\.org\/vscode\/gallery\/extensionquery$/,
];

describe('a crafted snapshot is shown as plain text', () => {
  let s: Session | undefined;
  let pixelHits = 0;
  const left: string[] = [];
  // A tracking pixel: any request here means a rendered image (or a prefetch) left the editor.
  const pixel = createServer((req, res) => {
    pixelHits++;
    res.writeHead(200, { 'content-type': 'image/png' }).end();
  });
  let HOSTILE: Record<string, string> = {};

  before(async () => {
    await new Promise<void>((r) => pixel.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(pixel.address() as AddressInfo).port}/pixel.png`;
    const snap = join(mkdtempSync(join(tmpdir(), 'headroom-hostile-')), 'hostile.pickle');
    HOSTILE = JSON.parse(
      execFileSync('python3', [join(ROOT, 'test', 'fixtures', 'hostile', 'make_snapshot.py'), snap, url, REMOTE, String(LINE)], {
        encoding: 'utf8',
      }),
    ) as Record<string, string>;
    s = await Session.open({
      workspace: join(__dirname, 'workspace'),
      files: [[snap, 'hostile.pickle']],
      settings: { 'headroom.pathMappings': { [REMOTE]: '${workspaceFolder}' } },
    });
    const origin = new URL(s.page.url()).origin;
    // Every request of the page and its webviews: only code-server's own origin is expected.
    s.page.context().on('request', (r) => {
      const u = r.url();
      if (!/^(data|blob|vscode-webview|vscode-resource):/.test(u) && !u.startsWith(origin) && !EDITOR_OWN.some((re) => re.test(u)))
        left.push(u);
    });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
    pixel.close();
  });

  e2e(
    'opening it leaves the extension host free, and the summary shows the names as text',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      await s.workbench.answerFileDialog(join(s.workspace, 'hostile.pickle'));
      // Another command of the extension host answers meanwhile (the snapshot is small: this shows
      // no load holds the host, not that a long one would not).
      await s.workbench.runCommand('Headroom: Show GPUs (device memory and processes)');
      // Its bound is part of the check (the host answers while the snapshot loads): kept as it was.
      await waitFor(
        'GPUs.txt to open',
        () => s.workbench.activeFile(),
        (f) => f === 'GPUs.txt',
        { guardMs: 10_000 },
      );
      assert.equal(await s.workbench.activeFile(), 'GPUs.txt');
      const page = webviewContent(s.page);
      await page.locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
      const text = await page.locator('#root').innerText();
      for (const k of ['bold', 'link', 'icon', 'image', 'command'] as const)
        assert.ok(text.includes(HOSTILE[k]!), `${k}: ${HOSTILE[k]} not shown as text in:\n${text}`);
      // Controls are shown as escapes, never passed to the page as characters.
      assert.ok(text.includes('\\x1b]0;pwned\\x07'), text);
      assert.doesNotMatch(text, /[\u001b\u0007\u009b\u202e]/);
      assert.equal(await page.locator('img').count(), 0);
      const hrefs = await page.locator('#root').evaluate((root) => [...root.querySelectorAll('a')].map((a) => a.getAttribute('href')));
      assert.ok(
        hrefs.every((h) => h === '#'),
        JSON.stringify(hrefs),
      );
    },
  );

  e2e(
    'the hover shows the names as text, and links only to the workspace and Headroom',
    () => s!,
    async (s) => {
      await s.workbench.openFile('train.py');
      await s.editor.afterDecorationsWith('at peak');
      const hover = await s.editor.hover(LINE);
      assert.match(hover, /stack of the largest/);
      for (const k of ['bold', 'link', 'icon', 'command', 'html', 'bare', 'autolink'] as const)
        assert.ok(hover.includes(HOSTILE[k]!), `${k}: ${HOSTILE[k]} not shown as text in:\n${hover}`);
      assert.ok(hover.includes('\\x1b]0;pwned\\x07'), hover);
      assert.ok(hover.includes('x\\r\\nnote: forged line'), hover);
      const box = '.monaco-hover-content';
      assert.equal(await s.page.locator(`${box} img`).count(), 0);
      assert.equal(await s.page.locator(`${box} strong`, { hasText: 'FAKE' }).count(), 0);
      assert.equal(await s.page.locator(`${box} .codicon-warning`).count(), 0);
      const links = await s.page.evaluate(linksIn, box);
      // A remote editor shows workspace files as vscode-remote:// links.
      const allowed = (h: string) =>
        /^command:headroom\.show(Summary|Timeline)$/.test(h) ||
        (/^(file|vscode-remote):\/\/[^/]*\//.test(h) && decodeURIComponent(new URL(h).pathname) === `${s.workspace}/train.py`);
      assert.ok(links.length >= 3, JSON.stringify(links));
      assert.deepEqual(
        links.filter((h) => !allowed(h)),
        [],
      );
      await s.page.keyboard.press('Escape');
    },
  );

  e2e(
    'the summary opens a line only through the path mapping',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Show Summary');
      const page = webviewContent(s.page, (await s.page.locator('iframe.webview.ready').count()) - 1);
      await page
        .locator('a', { hasText: `train.py:${LINE}` })
        .first()
        .click();
      // A hang guard, not a time limit: once, in a clean-clone CI run, the line had not opened after 10 s.
      await waitFor(
        'train.py to open',
        () => s.workbench.activeFile(),
        (f) => f === 'train.py',
      );
      assert.equal(await s.workbench.activeFile(), 'train.py');
      // A frame outside the mapping is not opened as it is: a warning says how to map it.
      await s.workbench.runCommand('Headroom: Show Summary');
      const again = webviewContent(s.page, (await s.page.locator('iframe.webview.ready').count()) - 1);
      await again.locator('a', { hasText: 'pwned' }).first().click();
      const notes = await waitFor(
        'a warning that the frame is not in this workspace',
        () => s.workbench.notifications(),
        (ns) => ns.some((n) => /not in this workspace/.test(n)),
      );
      assert.ok(
        notes.some((n) => /not in this workspace/.test(n)),
        JSON.stringify(notes),
      );
    },
  );

  e2e(
    'hostile files never hold the extension host: a FIFO, a compression bomb, a run folder whose samples are /dev/zero',
    () => s!,
    async (s) => {
      const w = s.workspace;
      execFileSync('mkfifo', [join(w, 'fifo.pickle')]);
      // 300 MB of MARK opcodes in ~300 KB of gzip: refused at the marks limit.
      execFileSync('python3', [
        '-c',
        'import gzip,sys; gzip.open(sys.argv[1], "wb").write(b"\\x80\\x04" + b"(" * 300_000_000)',
        join(w, 'bomb.pickle.gz'),
      ]);
      const run = join(w, 'runs', 'r');
      mkdirSync(run, { recursive: true });
      writeFileSync(join(run, 'meta.json'), '{"pid": 1, "status": "ended"}');
      symlinkSync('/dev/zero', join(run, 'samples.jsonl'));
      symlinkSync('/dev/zero', join(run, 'events.jsonl'));
      copyFileSync(join(w, 'hostile.pickle'), join(run, 'snapshot-exit-1.pickle'));
      const hostFree = async () => {
        await s.workbench.openFile('train.py');
        await s.workbench.runCommand('Headroom: Show GPUs (device memory and processes)');
        // Its bound is part of the check (the host stays free while it refuses the file): kept as it was.
        await waitFor(
          'GPUs.txt to open',
          () => s.workbench.activeFile(),
          (f) => f === 'GPUs.txt',
          { guardMs: 20_000 },
        );
        assert.equal(await s.workbench.activeFile(), 'GPUs.txt', 'another command answered');
      };
      // Each is refused with its typed reason (in Headroom's log) while the host stays free.
      for (const [file, why] of [
        ['fifo.pickle', /fifo\.pickle: io: .*FIFO \(named pipe\), not a regular file/],
        ['bomb.pickle.gz', /bomb\.pickle\.gz: limit: .*--limit marks/],
      ] as const) {
        await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
        await s.workbench.answerFileDialog(join(w, file));
        await hostFree();
        assert.match(await s.waitForLog('Headroom.log', why, 60_000), why);
      }
      await s.workbench.runCommand('Headroom: Open Run…');
      await s.workbench.answerFileDialog(run);
      await hostFree();
      // The snapshot beside the refused side files still opens: its summary comes up.
      await webviewContent(s.page, (await s.page.locator('iframe.webview.ready').count()) - 1)
        .locator('[data-fact="peak"]')
        .waitFor({ timeout: 60_000 });
    },
  );

  e2e(
    'nothing was fetched: no pixel, no request outside code-server',
    () => s!,
    async () => {
      assert.equal(pixelHits, 0);
      assert.deepEqual(left, []);
    },
  );
});
