// Installs the npm dev dependencies when node_modules is missing or older than package-lock.json,
// so that `npm test` and `npm start` work on a fresh clone.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';

export function ensureDeps() {
  // A test's fresh clone links this checkout's node_modules (scripts/clone.mjs): `npm ci` there
  // would empty the checkout's packages through the link, so a linked node_modules is used as it is.
  if (existsSync('node_modules') && lstatSync('node_modules').isSymbolicLink()) return;
  const marker = 'node_modules/.package-lock.json';
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync('package-lock.json').mtimeMs) return;
  console.log('installing npm dependencies (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

/** A C/C++ compiler, cmake and binutils (objdump, readelf) for the native addon: Debian packages when missing. */
export function ensureNativeTools() {
  const has = (cmd) => {
    try {
      execFileSync(cmd, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const missing = [
    ['cmake', 'cmake'],
    ['g++', 'g++'],
    ['cc', 'gcc'],
    ['objdump', 'binutils'],
  ]
    .filter(([cmd]) => !has(cmd))
    .map(([, pkg]) => pkg);
  if (!missing.length) return;
  console.log(`installing Debian packages for the native addon: ${missing.join(' ')}`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (args) =>
    execFileSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', ...missing]);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDeps();
