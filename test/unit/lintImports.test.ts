import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { importBindings } from '../../extension/src/core/lint/analysis/imports';
import { lintText } from '../../extension/src/core/lint/lint';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { LintSession } from '../../extension/src/core/lint/session';
import { ROOT } from './helpers';

// Import bindings are read from each statement's text: checked against CPython's own reading of the
// same file (ast), on the shapes that trip text readers.
const SOURCE = `import torch
import torch.nn.functional as F, numpy as np
import torch.utils.checkpoint
from torch.cuda.amp import (  # old
    autocast as ac,
    GradScaler,  # kept
)
from torch.utils.data import \\
    DataLoader
from . import sibling
from .models import Net
from torch.nn import *
def f():
    from torch.utils.checkpoint import checkpoint as ckpt
    import torch.distributed as dist
if True:
    from torch import nn;   import os.path
`;

describe('import bindings', () => {
  let parser: PythonParser;
  before(async () => {
    parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
  });

  it('equal what CPython binds, for every import shape', () => {
    const py = `
import ast, json, sys
out = {}
for n in ast.walk(ast.parse(sys.stdin.read())):
    if isinstance(n, ast.Import):
        for a in n.names:
            if a.asname: out[a.asname] = a.name
            else: out[a.name.split('.')[0]] = a.name.split('.')[0]
    elif isinstance(n, ast.ImportFrom) and n.level == 0:
        for a in n.names:
            if a.name != '*': out[a.asname or a.name] = n.module + '.' + a.name
print(json.dumps(out))`;
    const expected = JSON.parse(execFileSync('python3', ['-c', py], { input: SOURCE, encoding: 'utf8' })) as Record<string, string>;
    const tree = parser.parse(SOURCE);
    assert.deepEqual(Object.fromEntries(importBindings(tree.rootNode)), expected);
    assert.ok(Object.keys(expected).length >= 10);
    tree.delete();
  });

  it('rules find calls through a local alias, in a full lint and as a session edits the import', () => {
    const src = (imp: string) => `import torch\n${imp}\n\ndef f(block, x):\n    return ckpt(block, x)\n`;
    const hr006 = (text: string) =>
      lintText(parser, text)
        .findings.filter((f) => f.rule === 'HR006')
        .map((f) => f.start.line);
    // Each file's own bindings: a file without the alias first, then files with it.
    assert.deepEqual(hr006(src('from mylib import ckpt')), []);
    assert.deepEqual(hr006(src('from torch.utils.checkpoint import checkpoint as ckpt')), [4]);
    assert.deepEqual(hr006(src('from torch.utils.checkpoint import checkpoint_sequential as ckpt')), [4]);
    assert.deepEqual(hr006(src('from mylib import checkpoint as ckpt')), [], 'an alias of another checkpoint');
    // A session keeps the file's bindings between edits: an edited import must be read afresh.
    const s = new LintSession(parser);
    let text = src('from torch.utils.checkpoint import checkpoint as ckpt');
    assert.deepEqual(s.update(text).filter((f) => f.rule === 'HR006').length, 1);
    for (const [from, to, n] of [
      ['from torch.utils.checkpoint', 'from mylib', 0],
      ['from mylib', 'from torch.utils.checkpoint', 1],
    ] as const) {
      const at = text.indexOf(from);
      const next = text.slice(0, at) + to + text.slice(at + from.length);
      const found = s.update(next, [
        { offset: at, length: from.length, text: to, start: { line: 1, col: 0 }, end: { line: 1, col: from.length } },
      ]);
      text = next;
      assert.equal(found.filter((f) => f.rule === 'HR006').length, n, `after ${from} → ${to}`);
    }
    s.dispose();
  });
});
