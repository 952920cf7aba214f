import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keepsPerIteration } from '../../extension/src/core/diagnose/leakText';

describe('leak figures that add up', () => {
  it('whole tensors of one size: count × size = total, plurals right', () => {
    assert.equal(
      keepsPerIteration({ bytesPerIteration: 4 * 2 ** 20, blocksPerIteration: 2, blockBytes: 2 * 2 ** 20 }),
      '2 tensors of 2.00 MiB per iteration = 4.00 MiB',
    );
    assert.equal(
      keepsPerIteration({ bytesPerIteration: 2560, blocksPerIteration: 1, blockBytes: 2560 }),
      '1 tensor of 2.50 KiB per iteration',
    );
  });
  it('mixed sizes give the total and the average, never a count times a size that does not add up', () => {
    const t = keepsPerIteration({ bytesPerIteration: 4.1 * 2 ** 20, blocksPerIteration: 3, blockBytes: 2 * 2 ** 20 });
    assert.equal(t, '4.10 MiB per iteration (3.0 tensors per iteration, 1.37 MiB each on average)');
  });
  it('a tensor every few iterations: no "0 tensors", no raw fraction', () => {
    const t = keepsPerIteration({ bytesPerIteration: (64 * 2 ** 20) / 4, blocksPerIteration: 0.25, blockBytes: 64 * 2 ** 20 });
    assert.equal(t, '16.0 MiB per iteration (one tensor of 64.0 MiB every 4 iterations)');
    assert.doesNotMatch(t, /\d\.\d{4,}|\b0 tensors/);
  });
});
