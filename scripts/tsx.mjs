// Runs a TypeScript entry point with tsx after making sure dependencies are installed.
// Usage: node scripts/tsx.mjs FILE [ARGS...]
import { spawnSync } from 'node:child_process';
import { ensureDeps } from './ensure-deps.mjs';

ensureDeps();
const r = spawnSync(process.execPath, ['--import', 'tsx', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
