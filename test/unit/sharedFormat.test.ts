import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { formatBytes } from '../../extension/src/shared/format';
import { ROOT } from './helpers';

// The engine, the CLI, the editor and the three webview pages print figures through one module:
// each bundle is built as esbuild.mjs builds it and must contain extension/src/shared/format.ts, and
// no other source may keep its own table of byte units (the webview's copy printed "1.5 B" where
// the engine printed "2 B"). test/e2e/modules.e2e.test.ts reads the page's cells against formatBytes.
const ENTRIES: Record<string, { entry: string; platform: 'node' | 'browser' }> = {
  cli: { entry: 'extension/src/cli/main.ts', platform: 'node' },
  extension: { entry: 'extension/src/extension.ts', platform: 'node' },
  summary: { entry: 'webview/src/main.ts', platform: 'browser' },
  timeline: { entry: 'webview/src/timeline/main.ts', platform: 'browser' },
  flame: { entry: 'webview/src/flame/main.ts', platform: 'browser' },
};

async function inputsOf(entry: string, platform: 'node' | 'browser'): Promise<string[]> {
  // The pages import their CSS: esbuild wants an output folder for it, though nothing is written.
  const outdir = mkdtempSync(join(tmpdir(), 'headroom-bundle-'));
  const r = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    outdir,
    metafile: true,
    platform,
    external: ['vscode'],
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  rmSync(outdir, { recursive: true, force: true });
  return Object.keys(r.metafile.inputs);
}

describe('one formatter for every surface', () => {
  for (const [name, { entry, platform }] of Object.entries(ENTRIES)) {
    it(`the ${name} bundle prints bytes with extension/src/shared/format.ts`, async () => {
      const inputs = await inputsOf(entry, platform);
      assert.ok(inputs.includes('extension/src/shared/format.ts'), inputs.filter((i) => !i.includes('node_modules')).join('\n'));
    });
  }

  it('no other source keeps a table of byte units', () => {
    const tables = ['extension/src', 'webview/src'].flatMap((d) =>
      readdirSync(join(ROOT, d), { recursive: true })
        .map((f) => join(ROOT, d, String(f)))
        .filter((f) => f.endsWith('.ts') && /['"]KiB['"],\s*['"]MiB['"]/.test(readFileSync(f, 'utf8')))
        .map((f) => relative(ROOT, f)),
    );
    assert.deepEqual(tables, ['extension/src/shared/format.ts']);
  });

  it('sub-KiB figures read as whole bytes on every surface, as PyTorch counts them', () => {
    // Per-iteration averages land a hair off whole bytes; a caching allocator hands out whole bytes.
    assert.equal(formatBytes(3.9999), '4 B');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1024), '1.00 KiB');
  });
});
