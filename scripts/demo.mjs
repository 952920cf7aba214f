// npm start: see demo/start.ts.
import { spawnSync } from 'node:child_process';
import { ensureDeps } from './ensure-deps.mjs';

ensureDeps();
const r = spawnSync(process.execPath, ['--import', 'tsx', 'demo/start.ts', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
