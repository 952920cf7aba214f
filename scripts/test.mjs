// The test suite: format, lint and conventions, type check, build, then the chosen layers in one node:test run.
// Usage: npm test [-- --layers unit,agent] [-- PATTERN]
//   --layers L,...  only these layers (default: all). PATTERN filters test names (--test-name-pattern).
// What each layer installs system-wide on first use is in LAYERS; docs/testing.md has the sizes.
import { spawnSync, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDeps, ensureNativeTools } from './ensure-deps.mjs';

/** Each layer: its folder, whether it needs the NVML addon built, and what it installs when missing. */
export const LAYERS = {
  // The package test packs the linux-x64 VSIX with the addon, so unit needs the compiler too.
  unit: { dir: 'test/unit', addon: true, installs: 'cmake, g++, binutils (Debian) if missing' },
  // The addon under code-server's Node 24 too: the e2e harness's tools.
  native: {
    dir: 'test/native',
    addon: true,
    installs: 'cmake, g++, binutils; the e2e tools (Node 24, code-server, chromium, libkrb5-dev)',
  },
  agent: {
    dir: 'test/agent',
    addon: false,
    installs: 'python3-torch (Debian: 621 MiB installed with its 182 dependencies, as measured in docs/measurements.md)',
  },
  gpu: { dir: 'test/gpu', addon: false, installs: 'nothing (skipped without a CUDA GPU)' },
  e2e: {
    dir: 'test/e2e',
    addon: false,
    installs: 'Node 24 and code-server (806 MiB in ~/.cache/headroom-e2e), chromium, libkrb5-dev (Debian: 394 MiB)',
  },
};

/** Splits argv into the chosen layers and the name pattern; throws on an unknown layer. */
export function parseArgs(argv) {
  const rest = [];
  let layers = Object.keys(LAYERS);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--layers' || a.startsWith('--layers=')) {
      const value = a === '--layers' ? argv[++i] : a.slice('--layers='.length);
      layers = (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = layers.filter((l) => !(l in LAYERS));
      if (bad.length || !layers.length)
        throw new Error(`unknown layer ${bad.join(', ') || '(none given)'}: choose from ${Object.keys(LAYERS).join(', ')}`);
    } else rest.push(a);
  }
  return { layers, pattern: rest[0] };
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`npm test: ${e.message}`);
    process.exit(2);
  }
  const { layers, pattern } = args;
  ensureDeps();
  const step = (title, cmd, argv) => {
    console.log(`\n== ${title}`);
    execFileSync(cmd, argv, { stdio: 'inherit' });
  };
  console.log(`layers: ${layers.map((l) => `${l} (installs: ${LAYERS[l].installs})`).join('; ')}`);
  // The conventions first: a formatting slip or a forbidden import fails in seconds, before the build.
  // Both run before either fails the suite, so one run lists every slip.
  const checks = [
    ['format and lint (Biome, biome.json)', ['node_modules/@biomejs/biome/bin/biome', 'ci', '.']],
    ['conventions (scripts/conventions.mjs: layers, import circles, file sizes)', ['scripts/conventions.mjs']],
  ].map(([title, argv]) => {
    console.log(`\n== ${title}`);
    return spawnSync(process.execPath, argv, { stdio: 'inherit' }).status === 0 ? undefined : title;
  });
  const failed = checks.filter(Boolean);
  if (failed.length) {
    console.error(`\nnpm test: failed: ${failed.join('; ')}${failed[0] === checks[0] ? ' (npm run format fixes the formatting)' : ''}`);
    process.exit(1);
  }
  step('type check', process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']);
  step('build', process.execPath, ['esbuild.mjs']);
  if (layers.some((l) => LAYERS[l].addon)) {
    ensureNativeTools();
    step('build the native addon (cmake-js, from source)', process.execPath, [
      'node_modules/cmake-js/bin/cmake-js',
      'compile',
      '--directory',
      'native',
      '--out',
      'native/build',
    ]);
  }
  // A layer's folder and its subfolders (test/unit/rules/: a file a lint rule).
  const files = layers.flatMap((l) =>
    readdirSync(LAYERS[l].dir, { recursive: true })
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => join(LAYERS[l].dir, f)),
  );
  console.log(`\n== tests (${files.length} files: ${layers.join(', ')})`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...(pattern ? ['--test-name-pattern', pattern] : []), ...files], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
