import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { packageVsix } from '../../../scripts/vsix.mjs';
import { Editor } from '../pages/editor';
import { Problems } from '../pages/problems';
import { StatusBar } from '../pages/statusBar';
import { Workbench } from '../pages/workbench';
import { launchBrowser } from './browser';
import type { BrowserSession } from './browser';
import { CodeServer, installExtension, serverDirs, writeSettings } from './codeServer';
import type { ServerDirs } from './codeServer';
import { ensureTools } from './install';
import type { Tools } from './install';
import { waitFor } from '../waitFor';

export const ROOT = resolve(__dirname, '..', '..', '..');
export const ARTIFACTS = join(ROOT, 'test', 'e2e', 'artifacts');

export interface SessionOptions {
  /** A folder copied as the workspace (the original is never touched). */
  workspace: string;
  /** Extra files copied into the workspace: [source, name in the workspace]. */
  files?: [string, string][];
  settings?: Record<string, unknown>;
  /** Open the folder in Restricted Mode (workspace trust on, folder not trusted). */
  restricted?: boolean;
}

let tools: Tools | undefined;
let vsix: string | undefined;

/** The tools and the packaged extension, made once per test process. */
export function prepare(): { tools: Tools; vsix: string } {
  tools ??= ensureTools();
  if (!vsix) {
    vsix = join(mkdtempSync(join(tmpdir(), 'headroom-e2e-vsix-')), 'headroom.vsix');
    packageVsix({ out: vsix });
  }
  return { tools, vsix };
}

const live = new Set<CodeServer>();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    for (const s of live) s.killNow();
    process.exit(130);
  });
}
process.once('exit', () => {
  for (const s of live) s.killNow();
});

/** A real VS Code (code-server) with the packaged extension, a workspace, and a browser on it. */
export class Session {
  readonly workbench: Workbench;
  readonly statusBar: StatusBar;
  readonly editor: Editor;
  readonly problems: Problems;

  private constructor(
    readonly root: string,
    readonly dirs: ServerDirs,
    readonly workspace: string,
    readonly server: CodeServer,
    readonly browser: BrowserSession,
  ) {
    this.workbench = new Workbench(browser.page);
    this.statusBar = new StatusBar(browser.page);
    this.editor = new Editor(browser.page);
    this.problems = new Problems(browser.page);
  }

  get page(): Page {
    return this.browser.page;
  }

  static async open(opts: SessionOptions): Promise<Session> {
    const { tools, vsix } = prepare();
    const root = mkdtempSync(join(tmpdir(), 'headroom-e2e-'));
    const dirs = serverDirs(root);
    writeSettings(dirs, {
      ...(opts.restricted ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } : {}),
      ...opts.settings,
    });
    installExtension(tools, dirs, vsix);
    const workspace = join(root, 'workspace');
    cpSync(opts.workspace, workspace, { recursive: true });
    for (const [from, name] of opts.files ?? []) cpSync(from, join(workspace, name));
    const server = new CodeServer(tools, dirs);
    live.add(server);
    let browser: BrowserSession | undefined;
    try {
      const url = await server.start(0, !opts.restricted);
      browser = await launchBrowser(tools.chromium);
      await browser.page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
      const s = new Session(root, dirs, workspace, server, browser);
      await s.workbench.ready();
      return s;
    } catch (e) {
      await browser?.browser.close();
      await server.stop();
      live.delete(server);
      throw e;
    }
  }

  /** Log files of this session by name: the extension host's, and Headroom's own output channel. */
  logs(): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (d: string): void => {
      if (!existsSync(d)) return;
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.log')) out.set(p.slice(this.dirs.userData.length + 1), readFileSync(p, 'utf8'));
      }
    };
    walk(join(this.dirs.userData, 'logs'));
    out.set(
      'code-server.log',
      existsSync(join(this.root, 'code-server.log')) ? readFileSync(join(this.root, 'code-server.log'), 'utf8') : '',
    );
    return out;
  }

  log(suffix: string): string {
    return [...this.logs()]
      .filter(([k]) => k.endsWith(suffix))
      .map(([, v]) => v)
      .join('\n');
  }

  /** The log once it matches `re` (output channels reach disk a moment after they are written). */
  async waitForLog(suffix: string, re: RegExp, timeoutMs = 30_000): Promise<string> {
    // The caller asserts on the text: past the guard it gets the log as it is.
    return waitFor(
      `${suffix} to match ${re}`,
      () => this.log(suffix),
      (t) => re.test(t),
      { guardMs: timeoutMs, returnLast: true },
    );
  }

  /**
   * Opens a Python file, which activates Headroom (onLanguage:python), and waits until the
   * extension host has tried: after this, its commands and contributions are all registered.
   */
  async activate(pythonFile: string): Promise<void> {
    await this.workbench.openFile(pythonFile);
    await waitFor('the extension host to activate headroom-dev.torch-headroom after a Python file was opened', () =>
      /_doActivateExtension headroom-dev\.torch-headroom/.test(this.log('remoteexthost.log')),
    );
  }

  /** Each editor group's tabs, the active one starred, the focused group marked: who took focus. */
  private async groups(): Promise<string> {
    const g = await this.page
      .evaluate(() =>
        [...document.querySelectorAll('.editor-group-container')].map((c, i) => {
          const tabs = [...c.querySelectorAll('.tab')].map(
            (t) => `${t.querySelector('.label-name')?.textContent?.trim() ?? '?'}${t.classList.contains('active') ? '*' : ''}`,
          );
          return `${i + 1}${c.classList.contains('active') ? ' (active)' : ''}${c.contains(document.activeElement) ? ' (focused)' : ''}: ${tabs.join(', ')}`;
        }),
      )
      .catch((e: unknown) => [`(unread: ${String(e)})`]);
    return g.join('; ') || 'none';
  }

  /**
   * What the window showed when a step failed, in a few lines: CI keeps only the test output, not
   * the artifacts, so the failure message carries this.
   */
  async digest(): Promise<string> {
    const texts = async (selector: string) =>
      (
        await this.page
          .locator(selector)
          .allInnerTexts()
          .catch(() => [] as string[])
      ).map((t) => t.trim().replace(/\s+/g, ' ').slice(0, 200));
    const quick = (await this.workbench.quickInput.isVisible().catch(() => false))
      ? `"${(await texts('.quick-input-widget .quick-input-title')).join(' ')}" holding "${await this.workbench.quickInput
          .locator('input.input')
          .inputValue()
          .catch(() => '')}"`
      : 'closed';
    const tail = (suffix: string, n: number) =>
      this.log(suffix)
        .trimEnd()
        .split('\n')
        .slice(-n)
        .map((l) => `    ${l.slice(0, 300)}`)
        .join('\n');
    return [
      `tabs: ${(await texts('.tab .label-name')).join(' | ')}`,
      `groups: ${await this.groups()}`,
      `notifications: ${(await this.workbench.notifications().catch(() => [] as string[])).join(' | ') || 'none'}`,
      `quick input: ${quick}`,
      `webviews: ${await this.page
        .locator('iframe.webview')
        .count()
        .catch(() => -1)}`,
      `Headroom log, last lines:\n${tail('Headroom.log', 12)}`,
      `extension host log, last lines:\n${tail('remoteexthost.log', 6)}`,
    ].join('\n');
  }

  /** Saves a screenshot and every log under test/e2e/artifacts/<name>/. */
  async saveArtifacts(name: string): Promise<string> {
    const dir = join(ARTIFACTS, name.replace(/[^\w.-]+/g, '-').slice(0, 80));
    mkdirSync(dir, { recursive: true });
    await this.page.screenshot({ path: join(dir, 'screenshot.png') }).catch(() => undefined);
    for (const [k, v] of this.logs()) writeFileSync(join(dir, k.replace(/[\\/]/g, '__')), v);
    return dir;
  }

  async close(): Promise<void> {
    await this.browser.browser.close().catch(() => undefined);
    await this.server.stop();
    live.delete(this.server);
    rmSync(this.root, { recursive: true, force: true });
  }
}
