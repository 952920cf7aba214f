// npm start: the demo. Builds and packages Headroom, installs it into a code-server (a real
// VS Code 1.139), opens the demo workspace and prints the URL. Ctrl+C stops everything.
//   --screenshot FILE   instead: open the snapshot summary headlessly, save a screenshot, exit.
//   --port N            the port to listen on (default 8080, or a free one if it is taken).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../test/e2e/harness/browser';
import { CodeServer, installExtension, serverDirs, writeSettings } from '../test/e2e/harness/codeServer';
import { prepare } from '../test/e2e/harness/session';
import { Workbench } from '../test/e2e/pages/workbench';
import { webviewContent } from '../test/e2e/pages/webview';

const ROOT = resolve(__dirname, '..');
const HOME = join(ROOT, '.headroom-demo');
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

async function freePort(preferred: number): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((res, rej) => {
      const srv = createServer().once('error', rej);
      srv.listen(p, '127.0.0.1', () => {
        const port = (srv.address() as { port: number }).port;
        srv.close(() => res(port));
      });
    });
  return tryPort(preferred).catch(() => tryPort(0));
}

/** The demo workspace: the script, its README, and the real snapshot mapped onto this copy. */
function makeWorkspace(): string {
  const ws = join(HOME, 'workspace');
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(ws, { recursive: true });
  cpSync(join(ROOT, 'demo', 'workspace'), ws, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  const script = join(ws, 'train_leaky.py');
  execFileSync('python3', [join(ROOT, 'demo', 'map_frames.py'), SNAPSHOT, join(ws, 'leaky_demo.pickle'), 'train_leaky.py', script]);
  return ws;
}

async function main(): Promise<void> {
  const { tools, vsix } = prepare();
  const server = serverDirs(join(HOME, 'server'));
  writeSettings(server, { 'workbench.startupEditor': 'readme' });
  installExtension(tools, server, vsix);
  const ws = makeWorkspace();
  const cs = new CodeServer(tools, server);
  const stop = async () => {
    await cs.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const shot = opt('--screenshot');
  const url = await cs.start(shot ? 0 : await freePort(Number(opt('--port') ?? 8080)));
  const open = `${url}/?folder=${encodeURIComponent(ws)}`;
  if (!shot) {
    console.log(`\nHeadroom demo: open ${open}\n(a real VS Code with Headroom installed; see the workspace README for what to try; Ctrl+C stops it)\n`);
    return;
  }
  const b = await launchBrowser(tools.chromium, 1600, 1000);
  try {
    await b.page.goto(open);
    const wb = new Workbench(b.page);
    await wb.ready();
    await wb.openFile('train_leaky.py');
    await wb.runCommand('Headroom: Open Memory Snapshot…');
    await wb.answerFileDialog(join(ws, 'leaky_demo.pickle'));
    await webviewContent(b.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
    // The annotated script, with Headroom's view beside it.
    await b.page.locator('.tab[data-resource-name="train_leaky.py"]').first().click();
    await b.page.locator('.activitybar .action-item a[aria-label^="Headroom"]').first().click();
    await b.page.waitForTimeout(2500);
    await b.page.screenshot({ path: resolve(shot) });
    console.log(`screenshot saved to ${resolve(shot)}`);
  } finally {
    await b.browser.close();
    await cs.stop();
  }
}

main().catch((e) => {
  console.error(`demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
