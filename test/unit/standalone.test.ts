// The repository stands alone: a `git clone` into an empty folder, with nothing beside it, builds
// and passes the unit layer through the README's own command. A test that reads ../shared (or
// anything else beside the repository) fails there. The clone holds what is committed;
// HEADROOM_CLONE_WORKTREE=1 lays this checkout's uncommitted changes over it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { cloneEnv, freshClone } from '../../scripts/clone.mjs';

/** Set in the clone's own run, which would otherwise clone again. */
export const NESTED = 'HEADROOM_STANDALONE_NESTED';

/** The README's command for the layer that needs nothing system-wide (checked by readme.test.ts). */
export const UNIT_COMMAND = 'npm test -- --layers unit';

const skip = process.env[NESTED] ? 'this run is inside the clone' : false;

describe('a clone with nothing beside it', { skip }, () => {
  it(`passes \`${UNIT_COMMAND}\``, { timeout: 30 * 60_000 }, (t) => {
    const { clone, remove } = freshClone();
    try {
      // The e2e tools' cache is a path that cannot be made: a unit test that starts the e2e
      // installs fails instead of quietly installing.
      const env = cloneEnv({ [NESTED]: '1', HEADROOM_E2E_CACHE: '/dev/null/headroom-e2e' });
      const t0 = Date.now();
      const r = spawnSync('bash', ['-c', UNIT_COMMAND], { cwd: clone, env, encoding: 'utf8', maxBuffer: 1 << 28 });
      t.diagnostic(`the clone's unit layer took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      const out = `${r.stdout}${r.stderr}`;
      // Each failure with the start of its report, then the summary.
      const lines = out.split('\n');
      const failures = lines.flatMap((l, i) => (/^\s*not ok /.test(l) ? lines.slice(i, i + 14) : []));
      const tail = [...failures, '…', ...lines.slice(-25)].join('\n');
      assert.equal(r.status, 0, `the unit layer failed in the clone:\n${tail}`);
      // node:test's summary, as TAP (`# pass N`) or spec (`ℹ pass N`).
      assert.match(out, /^(#|ℹ) fail 0$/m, tail);
      const passed = Number(/^(?:#|ℹ) pass (\d+)$/m.exec(out)?.[1] ?? 0);
      assert.ok(passed > 100, `only ${passed} tests passed in the clone`);
      assert.match(out, /a clone with nothing beside it.*# (SKIP )?this run is inside the clone/, 'the clone skipped this test');
    } finally {
      remove();
    }
  });
});
