import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { lintText } from '../../extension/src/core/lint/lint';
import { firstDifference } from '../../extension/src/core/lint/syntax/mirrorCheck';
import { STATEMENTS } from '../../extension/src/core/lint/syntax/nodeIndex';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { rootOf, setMirrorReads } from '../../extension/src/core/lint/syntax/syntaxTree';
import type { SyntaxNode } from '../../extension/src/core/lint/syntax/syntaxNode';
import { ROOT } from './helpers';
import { pythonFiles } from './lintHelpers';

// The linter reads trees from the parser's memory (syntaxTree.ts). Every node must read as the
// parser's own API reads it: checked node by node on every Python file of the repository, whole
// and damaged (ERROR and MISSING nodes, odd characters).

/** Deterministic damage: cuts, stray brackets, quotes, tabs, CRLF, non-BMP characters. */
function damage(text: string, seed: number): string {
  let s = seed;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % Math.max(1, n);
  };
  const bits = ['(', ')', ':', '"""', "'", 'def ', '[', '\t', '\r\n', '😀é', 'λ = ', '\\', 'for x in', 'if', '\n'];
  let out = text;
  for (let k = 0; k < 1 + rand(5); k++) {
    const at = rand(out.length);
    out = rand(2) ? out.slice(0, at) + out.slice(at + 1 + rand(40)) : out.slice(0, at) + bits[rand(bits.length)]! + out.slice(at);
  }
  return out;
}

describe('syntax trees read from the parser memory', () => {
  let parser: PythonParser;
  before(async () => {
    parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
  });

  const check = (text: string, what: string) => {
    const tree = parser.parse(text);
    try {
      const root = rootOf(tree, text);
      // The mirror is in use (not the API's own node, which would make the comparison empty).
      assert.notEqual(root.tree, tree, `${what}: rootOf fell back to the API`);
      // Loops and definitions found without reading expressions (before any node is read, as a lint's first query): all of them.
      const ids = (ns: readonly (SyntaxNode | null)[]) => ns.map((n) => `${n!.type}@${n!.startIndex}`);
      assert.deepEqual(
        ids(root.statementsOfType!(STATEMENTS)),
        ids(tree.rootNode.descendantsOfType(STATEMENTS) as unknown as SyntaxNode[]),
        `${what}: statements`,
      );
      const fields = tree.language.fields.filter((f): f is string => !!f);
      assert.equal(firstDifference(root, tree.rootNode as unknown as SyntaxNode, fields, 11), undefined, what);
      return tree.rootNode.hasError;
    } finally {
      tree.delete();
    }
  };

  it('match the API on every Python file here, whole and damaged', () => {
    const files = pythonFiles(ROOT);
    assert.ok(files.length > 50, `${files.length} Python files`);
    let broken = 0;
    files.forEach((f, i) => {
      const text = readFileSync(f, 'utf8');
      check(text, f);
      if (check(damage(text, i + 1), `${f} (damaged, seed ${i + 1})`)) broken++;
    });
    // The damaged half has error recovery in it (else this checks nothing the whole files don't).
    assert.ok(broken > files.length / 2, `${broken} of ${files.length} damaged files have errors`);
  });

  it('find every loop, definition and except clause without reading expressions, in every kind of statement', () => {
    // Each statement kind that holds a block, nested in each other, plus broken code and a lambda.
    const text = [
      'import torch',
      'match cmd:',
      '    case [x, *rest] if rest:',
      '        for a in x:',
      '            pass',
      '    case _:',
      '        while ok:',
      '            def inner(): return [y for y in z]',
      'try:',
      '    with open(p) as f, torch.no_grad():',
      '        async def g():',
      '            async for b in loader:',
      '                async with lock:',
      '                    class K(B):',
      '                        @dec(1)',
      '                        def m(self): pass',
      'except* ValueError as e:',
      '    for i in range(3): pass',
      'except* (TypeError, KeyError):',
      '    pass',
      'try:',
      '    pass',
      'except Exception:',
      '    while 1: break',
      'else:',
      '    if a:',
      '        for j in k: pass',
      '    elif b:',
      '        def h(q=lambda: [w for w in v]): pass',
      '    else:',
      '        with x: pass',
      'finally:',
      '    for z in (lambda: 1)(): pass',
      'for r in s:',
      '    pass',
      'else:',
      '    def after(): pass',
      'x = foo(for_ in range(',
      'def broken(:',
      '    for q in w: pass',
    ].join('\n');
    const tree = parser.parse(text);
    try {
      const root = rootOf(tree, text);
      const ids = (ns: readonly (SyntaxNode | null)[]) => ns.map((n) => `${n!.type}@${n!.startIndex}`);
      const found = ids(root.statementsOfType!(STATEMENTS));
      assert.deepEqual(found, ids(tree.rootNode.descendantsOfType(STATEMENTS) as unknown as SyntaxNode[]));
      // Every kind is there (else this checks less than it says).
      for (const k of STATEMENTS)
        assert.ok(
          found.some((f) => f.startsWith(`${k}@`)),
          k,
        );
      assert.ok(tree.rootNode.hasError);
    } finally {
      tree.delete();
    }
  });

  it('keep node identity, parents and siblings consistent', () => {
    const text = 'import torch\nfor x in y:\n    loss = model(x)\n    total += loss  # c\n';
    const tree = parser.parse(text);
    const root = rootOf(tree, text);
    assert.equal(rootOf(tree, text), root);
    const call = root.descendantForIndex(text.indexOf('model('))!.parent!;
    assert.equal(call.type, 'call');
    assert.equal(call.parent!.childForFieldName('right'), call);
    assert.equal(call.childForFieldName('function')!.text, 'model');
    const stmt = root.descendantForIndex(text.indexOf('total'))!.parent!.parent!;
    assert.equal(stmt.type, 'expression_statement');
    assert.equal(stmt.nextSibling!.type, 'comment');
    assert.equal(stmt.previousSibling!.type, 'expression_statement');
    assert.equal(stmt.tree.rootNode, root);
    tree.delete();
  });

  it('read deeply nested code without running out of stack', () => {
    // 2,500 nested lists: the tree is ~5,000 nodes deep (a recursive scan ran out of stack at 2,000).
    const text = `import torch\nfor b in loader:\n    x = ${'['.repeat(2500)}model(b)${']'.repeat(2500)}\n    loss.backward()\n`;
    const r = lintText(parser, text);
    try {
      assert.equal(r.broken, false);
      const root = rootOf(r.tree, text);
      const calls = root.descendantsOfType('call').map((c) => c!.text);
      assert.deepEqual(calls, ['model(b)', 'loss.backward()']);
      assert.equal(root.descendantForIndex(text.indexOf('model'))!.text, 'model');
    } finally {
      r.tree.delete();
    }
  });

  it('lint the same findings as the API nodes on the lint corpus', () => {
    // The API's nodes through the same rules: the mirror changes speed, not findings.
    const dir = join(ROOT, 'test', 'fixtures', 'lintcorpus');
    let n = 0;
    for (const f of pythonFiles(dir)) {
      const text = readFileSync(f, 'utf8');
      const mirror = lintText(parser, text);
      setMirrorReads(false);
      let api;
      try {
        api = lintText(parser, text);
      } finally {
        setMirrorReads(true);
      }
      assert.deepEqual(
        mirror.findings.map((x) => `${x.rule}@${x.startIndex}`),
        api.findings.map((x) => `${x.rule}@${x.startIndex}`),
        f,
      );
      n += mirror.findings.length;
      mirror.tree.delete();
      api.tree.delete();
    }
    assert.ok(n > 40, `${n} findings compared`);
  });
});
