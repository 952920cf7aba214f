// Installs the npm dev dependencies when node_modules is missing or older than package-lock.json,
// so that `npm test` and `npm start` work on a fresh clone.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

export function ensureDeps() {
  const marker = 'node_modules/.package-lock.json';
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync('package-lock.json').mtimeMs) return;
  console.log('installing npm dependencies (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDeps();
