import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionCodes, actionCode } from '../../extension/src/core/snapshot/actions';

describe('ActionCodes', () => {
  it("gives actionCode's answer for every name, in any order, the empty name included", () => {
    const names = [
      '',
      'alloc',
      'free_requested',
      'free_completed',
      'segment_alloc',
      'segment_free',
      'oom',
      'constructor',
      'free',
      'reshard',
    ];
    // Each name first, in a fresh cache (whose empty slots must not answer for the empty name).
    for (const name of names) assert.equal(new ActionCodes().code(name), actionCode(name), `${JSON.stringify(name)} first`);
    const codes = new ActionCodes();
    let x = 7;
    for (let i = 0; i < 5000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      // Fresh string objects half the time: equal names, not the same object.
      const name = i % 2 ? names[(x >>> 8) % names.length]! : [...names[(x >>> 8) % names.length]!].join('');
      assert.equal(codes.code(name), actionCode(name), `${JSON.stringify(name)} at ${i}`);
    }
  });
});
