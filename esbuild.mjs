// Bundles the extension host (node/cjs, `vscode` external), the CLI and the webview (browser).
// Usage: node esbuild.mjs [--production] [--watch] [--outdir DIR]
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { buildWheel } from './scripts/wheel.mjs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdir = process.argv.includes('--outdir') ? process.argv[process.argv.indexOf('--outdir') + 1] : 'dist';

const common = {
  bundle: true,
  sourcemap: true,
  minify: production,
  logLevel: 'info',
  legalComments: 'none',
  define: { __HEADROOM_VERSION__: JSON.stringify(version) },
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: { extension: 'extension/src/extension.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: { cli: 'extension/src/cli/main.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: { webview: 'webview/src/main.ts', timeline: 'webview/src/timeline/main.ts', flame: 'webview/src/flame/main.ts' },
    outdir,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
];

// The Python parser's WebAssembly, beside the bundles that load it (the CLI and the extension).
mkdirSync(outdir, { recursive: true });
for (const f of ['tree-sitter.wasm', 'tree-sitter-python.wasm'])
  copyFileSync(new URL(`./node_modules/@vscode/tree-sitter-wasm/wasm/${f}`, import.meta.url), `${outdir}/${f}`);
// The Python package (torch-headroom): the agent and its entry points, as a wheel for pip.
buildWheel(outdir);

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('watching for changes…');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
