// The full test suite: type check, build, then every test layer in one node:test run:
// test/unit (engine, CLI, package), test/native (the NVML addon, built here), test/agent (the Python agent under real interpreters, the
// channel), test/gpu (skipped without a CUDA GPU, and says so) and test/e2e (a real VS Code:
// code-server + chromium). The harnesses install what they need on first use.
// Usage: npm test [-- PATTERN]   (PATTERN filters test names, as --test-name-pattern)
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDeps, ensureNativeTools } from './ensure-deps.mjs';

ensureDeps();
const step = (title, cmd, args) => {
  console.log(`\n== ${title}`);
  execFileSync(cmd, args, { stdio: 'inherit' });
};
step('type check', process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']);
step('build', process.execPath, ['esbuild.mjs']);
ensureNativeTools();
step('build the native addon (cmake-js, from source)', process.execPath, ['node_modules/cmake-js/bin/cmake-js', 'compile', '--directory', 'native', '--out', 'native/build']);

const layers = ['test/unit', 'test/native', 'test/agent', 'test/gpu', 'test/e2e'];
const files = layers.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => join(d, f)),
);
const pattern = process.argv[2];
console.log(`\n== tests (${files.length} files)`);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...(pattern ? ['--test-name-pattern', pattern] : []), ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
