// The demo: builds the CLI and analyzes the bundled sample, a real snapshot of
// demo/workspace/train_leaky.py captured on an H200. (The editor issue turns this into VS Code.)
import { execFileSync } from 'node:child_process';
import { ensureDeps } from './ensure-deps.mjs';

ensureDeps();
execFileSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
const sample = 'demo/workspace/leaky_demo.pickle';
console.log(`\n$ headroom analyze ${sample}\n`);
execFileSync(process.execPath, ['dist/cli.js', 'analyze', sample], { stdio: 'inherit' });
