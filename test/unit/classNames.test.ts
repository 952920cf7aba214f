// Class names read from the sources a stranger's snapshot names (core/source/classNames.ts): a
// file is read once, only a regular .py file under the size cap, and a source edited since the
// run (its def moved) names nothing rather than the wrong class.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLASS_NAME_LIMITS, ClassNames } from '../../extension/src/core/source/classNames';
import { mappedPaths } from '../../extension/src/core/source/pathMap';

describe('class names from the source', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-classes-'));
  const model = join(dir, 'modeling_x.py');
  writeFileSync(
    model,
    [
      'import torch',
      '',
      'class XAttention(torch.nn.Module):',
      '    def forward(self, x):',
      '        return x * 2',
      '',
      'def helper(x):',
      '    return x',
    ].join('\n'),
  );

  it('names a method by its class, a function by itself, and nothing when the def at that line is another function', () => {
    const n = new ClassNames();
    assert.equal(n.qualname(model, 5, 'forward'), 'XAttention.forward');
    assert.equal(n.qualname(model, 8, 'helper'), 'helper');
    assert.equal(n.qualname(model, 5, 'backward'), undefined, 'the source moved on since the run');
    assert.equal(n.qualname(model, 1, '<module>'), undefined);
  });

  it('reads through the locate function (a path mapping), and each file once', () => {
    let asked = 0;
    const n = new ClassNames((f) => {
      asked++;
      return [f.replace('/remote/site-packages', dir)];
    });
    assert.equal(n.qualname('/remote/site-packages/modeling_x.py', 5, 'forward'), 'XAttention.forward');
    assert.equal(n.qualname('/remote/site-packages/modeling_x.py', 8, 'helper'), 'helper');
    assert.equal(asked, 1);
  });

  it('through headroom.pathMappings’ prefixes (mappedPaths): the longest prefix first, then the path itself', () => {
    assert.deepEqual(mappedPaths('/r/sp/pkg/m.py', { '/r': '/a', '/r/sp/': '/b' }), ['/b/pkg/m.py', '/a/sp/pkg/m.py', '/r/sp/pkg/m.py']);
    assert.deepEqual(mappedPaths('/other/m.py', { '/r': '/a' }), ['/other/m.py']);
    const n = new ClassNames((f) => mappedPaths(f, { '/cluster/venv/lib/python3.12/site-packages': dir }));
    assert.equal(n.qualname('/cluster/venv/lib/python3.12/site-packages/modeling_x.py', 5, 'forward'), 'XAttention.forward');
  });

  it('never reads a FIFO, a device, a non-Python file or one over the cap (no hang, no name)', () => {
    const fifo = join(dir, 'pipe.py');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.py');
    writeFileSync(big, 'class Big:\n    def forward(self):\n        pass\n');
    truncateSync(big, CLASS_NAME_LIMITS.maxFileBytes + 1);
    const n = new ClassNames();
    assert.equal(n.qualname(fifo, 2, 'forward'), undefined);
    assert.equal(n.qualname('/dev/zero', 1, 'forward'), undefined);
    assert.equal(n.qualname(join(dir, 'missing.py'), 1, 'forward'), undefined);
    assert.equal(n.qualname(big, 3, 'forward'), undefined);
    assert.equal(n.qualname(model.replace('.py', '.txt'), 5, 'forward'), undefined);
  });
});
