import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tools } from './install';

/** Settings for a quiet, deterministic workbench. */
export const TEST_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'files.simpleDialog.enable': true,
  'window.restoreWindows': 'none',
  'editor.minimap.enabled': false,
  'git.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface ServerDirs {
  root: string;
  userData: string;
  extensions: string;
  config: string;
}

export function serverDirs(root: string): ServerDirs {
  const d = { root, userData: join(root, 'user-data'), extensions: join(root, 'extensions'), config: join(root, 'config.yaml') };
  mkdirSync(join(d.userData, 'User'), { recursive: true });
  mkdirSync(d.extensions, { recursive: true });
  writeFileSync(d.config, 'auth: none\n');
  return d;
}

export function writeSettings(dirs: ServerDirs, settings: Record<string, unknown>): void {
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...TEST_SETTINGS, ...settings }, null, 1));
}

/** Headroom's extension id before it was renamed torch-headroom: a reused folder may still hold it. */
const FORMER_ID = 'headroom-dev.headroom';

export function installExtension(tools: Tools, dirs: ServerDirs, vsix: string): void {
  // Both would register the same webview serializers: the renamed one would fail to activate. The
  // server loads what its folder holds, listed in extensions.json or not: the folder goes.
  for (const d of readdirSync(dirs.extensions))
    if (d.startsWith(`${FORMER_ID}-`)) rmSync(join(dirs.extensions, d), { recursive: true, force: true });
  execFileSync(
    tools.node24,
    [
      tools.codeServerEntry,
      '--config',
      dirs.config,
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      '--install-extension',
      vsix,
    ],
    {
      stdio: 'pipe',
    },
  );
}

/** A code-server on a free loopback port, in its own process group so that stop() ends all of it. */
export class CodeServer {
  private proc?: ChildProcess;
  url = '';

  /** The server's pid, which is also its process group's id (the demo's wrapper kills that group). */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  constructor(
    private readonly tools: Tools,
    private readonly dirs: ServerDirs,
  ) {}

  /** @param trust false runs with workspace trust on, so a fresh folder opens in Restricted Mode. */
  async start(port = 0, trust = true): Promise<string> {
    const log = createWriteStream(join(this.dirs.root, 'code-server.log'));
    const args = [
      this.tools.codeServerEntry,
      '--config',
      this.dirs.config,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      ...(trust ? ['--disable-workspace-trust'] : []),
      '--user-data-dir',
      this.dirs.userData,
      '--extensions-dir',
      this.dirs.extensions,
    ];
    const proc = spawn(this.tools.node24, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_CONFIG_HOME: this.dirs.root },
    });
    this.proc = proc;
    proc.stderr!.pipe(log);
    this.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const onData = (b: Buffer) => {
        log.write(b);
        out += b.toString();
        const m = /HTTP server listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) {
          proc.stdout!.off('data', onData);
          proc.stdout!.on('data', (c: Buffer) => log.write(c));
          resolve(m[1]!.replace(/\/$/, ''));
        }
      };
      proc.stdout!.on('data', onData);
      proc.once('exit', (code) =>
        reject(new Error(`code-server exited (${code}) before listening; see ${join(this.dirs.root, 'code-server.log')}`)),
      );
    });
    return this.url;
  }

  /** Last resort for an exiting test process: no stray code-server survives it. */
  killNow(): void {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.pid === undefined) return;
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Ends code-server and every process it started (extension hosts, watchers, terminals). */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.pid === undefined) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    try {
      process.kill(-p.pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
}
