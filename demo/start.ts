// npm start: the demo. Builds and packages Headroom, installs it into a code-server (a real
// VS Code 1.139), opens the demo workspace on the annotated script and prints the URL. Run through
// scripts/demo.mjs, which stops every process on Ctrl+C, SIGTERM or SIGHUP.
//   --screenshot FILE   instead: open the demo headlessly, save a screenshot, exit.
//   --port N            the port to listen on (default 8080, or a free one if it is taken).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../test/e2e/harness/browser';
import { CodeServer, installExtension, serverDirs, writeSettings } from '../test/e2e/harness/codeServer';
import { prepare } from '../test/e2e/harness/session';
import { Workbench } from '../test/e2e/pages/workbench';
import type { Page } from 'playwright-core';

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

/**
 * A demo-only helper extension: once the window is up it opens the snapshot (Headroom annotates
 * the code and shows its summary) and brings the script to the front at its hottest line. No file
 * dialog and no README preview stand in the way.
 */
function openerVsix(): string {
  const dir = join(HOME, 'opener');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifest = { name: 'demo-opener', publisher: 'headroom-dev', version: '0.0.1', engines: { vscode: '^1.90.0' }, activationEvents: ['onStartupFinished'], main: './extension.js', extensionDependencies: ['headroom-dev.torch-headroom'] };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(
    join(dir, 'extension.js'),
    `const vscode = require('vscode');
exports.activate = async () => {
  const f = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (!f) return;
  await vscode.commands.executeCommand('headroom.openSnapshot', vscode.Uri.joinPath(f.uri, 'leaky_demo.pickle'));
  const line = new vscode.Range(37, 0, 37, 0);
  await vscode.window.showTextDocument(vscode.Uri.joinPath(f.uri, 'train_leaky.py'), { viewColumn: vscode.ViewColumn.One, selection: line, preview: false });
};\n`,
  );
  const out = join(HOME, 'demo-opener.vsix');
  execFileSync(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], { cwd: dir, stdio: 'pipe' });
  return out;
}

/** Waits until Headroom's decorations are on the script (a "▲ size" after a line). */
async function annotated(page: Page): Promise<void> {
  await page.waitForFunction(
    () => [...document.querySelectorAll('.editor-instance .view-lines span')].some((e) => getComputedStyle(e, '::after').content.includes('▲')),
    undefined,
    { timeout: 120_000, polling: 100 },
  );
}

async function main(): Promise<void> {
  const { tools, vsix } = prepare();
  const server = serverDirs(join(HOME, 'server'));
  writeSettings(server, { 'workbench.startupEditor': 'none' });
  installExtension(tools, server, vsix);
  installExtension(tools, server, openerVsix());
  const ws = makeWorkspace();
  const cs = new CodeServer(tools, server);
  const stop = async () => {
    await cs.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  // Orphaned (the wrapper was killed outright): stop too, rather than serve on.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(), 1000).unref();
  const shot = opt('--screenshot');
  const url = await cs.start(shot ? 0 : await freePort(Number(opt('--port') ?? 8080)));
  if (process.env.HEADROOM_DEMO_PIDFILE && cs.pid) writeFileSync(process.env.HEADROOM_DEMO_PIDFILE, String(cs.pid));
  const open = `${url}/?folder=${encodeURIComponent(ws)}`;
  if (!shot) {
    console.log(`\nHeadroom demo: open ${open}\n(a real VS Code with Headroom installed, on ${new URL(url).host} only; see the workspace README for what to try; Ctrl+C stops it)\n`);
    return;
  }
  const b = await launchBrowser(tools.chromium, 1600, 1000);
  try {
    await b.page.goto(open);
    await new Workbench(b.page).ready();
    await annotated(b.page);
    // Headroom's view beside the annotated script.
    await b.page.locator('.activitybar .action-item a[aria-label^="Headroom"]').first().click();
    await b.page.locator('.tab.active[data-resource-name="train_leaky.py"]').first().waitFor({ timeout: 60_000 });
    await b.page.waitForTimeout(1500);
    await b.page.screenshot({ path: resolve(shot) });
    console.log(`screenshot saved to ${resolve(shot)}`);
  } catch (e) {
    await b.page.screenshot({ path: `${resolve(shot)}.failed.png` }).catch(() => undefined);
    throw new Error(`${(e as Error).message}\n(the page as it was: ${resolve(shot)}.failed.png; logs: ${join(server.userData, 'logs')})`);
  } finally {
    await b.browser.close();
    await cs.stop();
  }
}

main().catch((e) => {
  console.error(`demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
