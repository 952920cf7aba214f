// Every command line in the README's shell blocks runs in CI exactly as written: here, in a fresh
// clone, in the order the README gives them, or, for the few that need more than the unit layer
// has, in the test named in ELSEWHERE. A new shell line in the README that is in neither fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cloneEnv, freshClone } from '../../scripts/clone.mjs';
import { ROOT } from './helpers';

/** Shell lines run by other tests or by CI itself, each with where. */
const ELSEWHERE: Record<string, string> = {
  'npm start': 'test/e2e/demo.e2e.test.ts, in tmux: the URL, then Ctrl+C, SIGTERM and SIGHUP leave nothing',
  'npm start -- --screenshot demo.png': 'test/e2e/demo.e2e.test.ts, with a temporary FILE',
  'npm test': '.ci/run (CI runs exactly this)',
  'npm test -- --layers unit': 'test/unit/standalone.test.ts, in a fresh clone',
};

/** Shell lines run here, in a fresh clone, in README order. */
const HERE = [
  'npm run build',
  'npx headroom analyze test/fixtures/snapshots/leaky_demo.pickle',
  'npx headroom check test/fixtures/snapshots/leaky_demo.pickle --max-peak 150MiB',
  'npx headroom lint demo/workspace/train_leaky.py',
];

interface Line {
  text: string;
  command: string;
  /** From a trailing "# exits N" comment; 0 without one. */
  status: number;
}

/** The lines of ```bash/```sh/```shell/```console blocks: the command is the line without its comment. */
export function shellLines(markdown: string): Line[] {
  const out: Line[] = [];
  for (const block of markdown.matchAll(/^```(?:bash|sh|shell|console)\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1]!.split('\n')) {
      const text = raw.replace(/^\$ /, '').trimEnd();
      if (!text.trim() || text.trim().startsWith('#')) continue;
      const command = text.replace(/\s+#.*$/, '').trim();
      out.push({ text, command, status: Number(/#\s*exits (\d+)/.exec(text)?.[1] ?? 0) });
    }
  }
  return out;
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const lines = shellLines(README);

describe('the README', () => {
  it('lists every shell line as run here or run elsewhere, and nothing stale', () => {
    const unknown = lines.filter((l) => !HERE.includes(l.command) && !(l.command in ELSEWHERE)).map((l) => l.text);
    assert.deepEqual(unknown, [], 'README shell lines that no test runs: run them in readme.test.ts or list them in ELSEWHERE');
    const stale = [...HERE, ...Object.keys(ELSEWHERE)].filter((c) => !lines.some((l) => l.command === c));
    assert.deepEqual(stale, [], 'lines listed here that the README no longer has');
  });

  describe('quick start, in a fresh clone', () => {
    let clone = '';
    let remove = () => {};
    const outputs = new Map<string, string>();
    before(() => ({ clone, remove } = freshClone()));
    after(() => remove());

    for (const l of lines.filter((x) => HERE.includes(x.command))) {
      it(`${l.command} exits ${l.status}`, { timeout: 5 * 60_000 }, () => {
        // Exactly as written, comment and all, by the shell a user types into.
        const r = spawnSync('bash', ['-c', l.text], { cwd: clone, env: cloneEnv(), encoding: 'utf8', maxBuffer: 1 << 26 });
        outputs.set(l.command, r.stdout);
        assert.equal(r.status, l.status, `${r.stdout}\n${r.stderr}`);
      });
    }

    it('the analyze output the README quotes is what analyze prints', () => {
      const real = outputs.get(HERE[1]!);
      assert.ok(real, 'analyze ran');
      const quoted = /prints:\n\n```text\n([\s\S]*?)```/.exec(README)?.[1];
      assert.ok(quoted, 'the README quotes analyze');
      // In order, each quoted line is a line of the real output; "…" stands for lines left out.
      let at = 0;
      const realLines = real.split('\n').map((x) => x.trimEnd());
      for (const q of quoted.split('\n').map((x) => x.trimEnd())) {
        if (q === '…' || q === '') continue;
        const i = realLines.indexOf(q, at);
        assert.ok(i >= 0, `quoted but not printed (in this order): ${q}\n--- real output:\n${real}`);
        at = i + 1;
      }
    });
  });
});
