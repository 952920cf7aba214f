// Every command line in the README's shell blocks runs in CI exactly as written: the install
// section's in install.test.ts (from an empty folder, after installing the packed package), the
// others in the test named in ELSEWHERE. A new shell line in the README that is in neither fails.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers';
import { INSTALL_SECTION, section, shellLines } from './readmeLines';

/** Shell lines run by other tests or by CI itself, each with where. */
const ELSEWHERE: Record<string, string> = {
  'npm start': 'test/e2e/demo.e2e.test.ts, in tmux: the URL, then Ctrl+C, SIGTERM and SIGHUP leave nothing',
  'npm start -- --screenshot demo.png': 'test/e2e/demo.e2e.test.ts, with a temporary FILE',
  'npm test': '.ci/run (CI runs exactly this)',
  'npm test -- --layers unit': 'test/unit/standalone.test.ts, in a fresh clone',
};

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
// The install section's lines run in install.test.ts, from an empty folder after the package's install.
const installLines = new Set(shellLines(section(README, INSTALL_SECTION)).map((l) => l.command));
const lines = shellLines(README).filter((l) => !installLines.has(l.command));

describe('the README', () => {
  it('lists every shell line as run here or run elsewhere, and nothing stale', () => {
    const unknown = lines.filter((l) => !(l.command in ELSEWHERE)).map((l) => l.text);
    assert.deepEqual(unknown, [], 'README shell lines that no test runs: put them in the install section or list them in ELSEWHERE');
    const stale = Object.keys(ELSEWHERE).filter((c) => !lines.some((l) => l.command === c));
    assert.deepEqual(stale, [], 'lines listed here that the README no longer has');
  });
});
