import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CrossSignatures } from '../../extension/src/core/lint/crossCheck';
import { globToRegExp } from '../../extension/src/core/lint/glob';
import { applyEdits, lintText } from '../../extension/src/core/lint/lint';
import { joinCells, splitFinding } from '../../extension/src/core/lint/notebook';
import { checkLiveSize, LIVE_LIMIT, NotLintedError } from '../../extension/src/core/lint/notLinted';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { LintSession } from '../../extension/src/core/lint/session';
import type { TextChange } from '../../extension/src/core/lint/session';
import { forgetRoot, rootOf } from '../../extension/src/core/lint/syntax/syntaxTree';
import type { SyntaxNode } from '../../extension/src/core/lint/syntax/syntaxNode';
import { wasmHeap } from '../../extension/src/core/lint/syntax/wasmTables';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';

// Linting as documents change: incremental sessions, notebooks, globs, and the rules' pages.
let parser: PythonParser;

describe('lint sessions, notebooks and globs', () => {
  before(async () => {
    parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
  });
  const src = 'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n    loss.backward()\n';
  /** The change that replaces [a, b) of `text` with `ins`, as an editor reports it. */
  const change = (text: string, a: number, b: number, ins: string): TextChange => {
    const pos = (i: number) => ({ line: text.slice(0, i).split('\n').length - 1, col: i - (text.lastIndexOf('\n', i - 1) + 1) });
    return { offset: a, length: b - a, text: ins, start: pos(a), end: pos(b) };
  };

  it('re-lints incrementally to the same findings as a full lint', () => {
    const s = new LintSession(parser);
    assert.equal(s.update(src).length, 1);
    const at = src.indexOf('total = 0');
    const next = src.slice(0, at) + '# running\n' + src.slice(at);
    const inc = s.update(next, [change(src, at, at, '# running\n')]);
    const full = lintText(parser, next).findings;
    assert.deepEqual(
      inc.map((f) => [f.rule, f.start, f.startIndex]),
      full.map((f) => [f.rule, f.start, f.startIndex]),
    );
    assert.equal(inc[0]!.start.line, 5);
  });

  it('re-reads what other functions depend on when the edit moves to another function', () => {
    // The session keeps the last cross-function signature for the next edit in the same function.
    // Edit an unrelated function, then rename the helper whose result the loop's HR001 reads: the
    // rename must be compared with the helper's own signature, not the unrelated function's.
    let text =
      'import torch\n\ndef step_fn(model, x, y):\n    loss = criterion(model(x), y)\n    return loss\n\ndef train_all(model, dl):\n    total = 0\n    for x, y in dl:\n        total += step_fn(model, x, y)\n    return total\n\ndef other(a):\n    return a + 1\n';
    const s = new LintSession(parser);
    assert.deepEqual(
      s.update(text).map((f) => f.rule),
      ['HR001'],
    );
    const edits: [string, string][] = [
      ['return a + 1', 'return a + 2'],
      ['return a + 2', 'return a + 3'],
      ['def step_fn', 'def step_fnx'],
      ['def step_fnx', 'def step_fn'],
    ];
    const seen: number[] = [];
    for (const [from, to] of edits) {
      const at = text.indexOf(from);
      const c = change(text, at, at + from.length, to);
      text = text.slice(0, at) + to + text.slice(at + from.length);
      const inc = s.update(text, [c]).map((f) => `${f.rule}@${f.start.line}`);
      assert.deepEqual(
        inc,
        lintText(parser, text).findings.map((f) => `${f.rule}@${f.start.line}`),
        `after ${from} → ${to}`,
      );
      seen.push(inc.length);
    }
    assert.deepEqual(seen, [1, 1, 0, 1], 'the rename takes the loop’s finding away, and renaming back brings it back');
    s.dispose();
  });

  it('reuses a cross-function signature for the same tree and units, read through a new root', () => {
    // A session reads its tree through a new root at every edit: the signature kept after one edit
    // must be found again at the next one in the same function, and only then.
    const text =
      'import torch\n\ndef step_fn(model, x, y):\n    loss = criterion(model(x), y)\n    return loss\n\ndef other(a):\n    return a + 1\n';
    const tree = parser.parse(text);
    const again = parser.parse(text);
    try {
      const refs = { defs: new Set(['step_fn']), callers: new Set<string>() };
      const bindings = new Map([['torch', 'torch']]);
      const defs = (root: SyntaxNode, name: string) =>
        root.descendantsOfType('function_definition').filter((d): d is SyntaxNode => d?.childForFieldName('name')?.text === name);
      const cross = new CrossSignatures();
      let root = rootOf(tree, text);
      const sig = cross.of(tree, root, defs(root, 'step_fn'), bindings, refs);
      assert.notEqual(sig, '', 'other functions read step_fn: it has a signature');
      forgetRoot(tree);
      root = rootOf(tree, text);
      assert.equal(cross.of(tree, root, defs(root, 'step_fn'), bindings, refs), sig);
      assert.equal(cross.computed, 1, 'the same tree and units through a new root: reused');
      const other = rootOf(again, text);
      assert.equal(cross.of(again, other, defs(other, 'step_fn'), bindings, refs), sig);
      assert.equal(cross.computed, 2, 'another tree: computed');
      assert.equal(cross.of(again, other, defs(other, 'other'), bindings, refs), '');
      assert.equal(cross.computed, 3, 'other units: computed');
      cross.clear();
      cross.of(again, other, defs(other, 'other'), bindings, refs);
      assert.equal(cross.computed, 4, 'after clear: computed');
    } finally {
      forgetRoot(tree);
      forgetRoot(again);
      tree.delete();
      again.delete();
    }
  });

  it('says a text the rules cannot walk with a typed error, and lints the next one afresh', () => {
    // 20,000 nested brackets around what is accumulated (CPython refuses 200): hostile input,
    // deeper than the rules' recursion over expressions goes.
    const ok = 'import torch\ntotal = 0\nfor b in loader:\n    x = model(b)\n    total += x\n';
    const at = ok.indexOf('model(b)');
    const wrap = `${'['.repeat(20000)}model(b)${']'.repeat(20000)}`;
    const deep = ok.slice(0, at) + wrap + ok.slice(at + 'model(b)'.length);
    const same = (a: Finding[], b: Finding[]) =>
      assert.deepEqual(
        a.map((f) => [f.rule, f.start, f.startIndex]),
        b.map((f) => [f.rule, f.start, f.startIndex]),
      );
    const full = lintText(parser, ok).findings;
    // HR001, and HR004: the loop runs the model over data and nothing trains.
    assert.deepEqual(full.map((f) => f.rule).sort(), ['HR001', 'HR004']);
    const s = new LintSession(parser);
    // On opening; then the edit that makes it walkable.
    assert.throws(
      () => s.update(deep),
      (e) => e instanceof NotLintedError && e.reason === 'nested too deeply',
    );
    same(s.update(ok, [change(deep, at, at + wrap.length, 'model(b)')]), full);
    // After an edit that makes it so (the old tree was edited before the rules failed), and back.
    assert.throws(() => s.update(deep, [change(ok, at, at + 'model(b)'.length, wrap)]), NotLintedError);
    same(s.update(ok, [change(deep, at, at + wrap.length, 'model(b)')]), full);
    // The editor's size limit says why in the same type (the CLI has none).
    assert.doesNotThrow(() => checkLiveSize('x'.repeat(LIVE_LIMIT)));
    assert.throws(
      () => checkLiveSize('x'.repeat(LIVE_LIMIT + 1)),
      (e) => e instanceof NotLintedError && /^1,048,577 characters: the editor lints up to 1,048,576/.test(e.reason),
    );
    // The one-shot lint says it the same way.
    assert.throws(
      () => lintText(parser, deep),
      (e) => e instanceof NotLintedError && e.reason === 'nested too deeply',
    );
    // Nothing is kept in the parser's memory by a failed lint: trees there are freed by hand, and
    // one of this text takes megabytes (a tree kept per keystroke would grow it without end).
    const memory = () => wasmHeap()!.u8.length;
    const before = memory();
    for (let i = 0; i < 40; i++) {
      assert.throws(() => s.update(deep, [change(ok, at, at + 'model(b)'.length, wrap)]), NotLintedError);
      s.update(ok, [change(deep, at, at + wrap.length, 'model(b)')]);
    }
    assert.equal(memory(), before);
    s.dispose();
  });

  it('after any sequence of edits, re-linting only the touched functions and statements equals a full lint', () => {
    // Functions, methods, a Dataset and a module-level loop with findings, edited at pseudo-random
    // places with edits that keep the syntax valid: comment lines, spaces at line ends, fixes applied
    // and undone, a no_grad decorator added and removed, DataLoader workers switched (a finding in
    // another statement changes severity), a call split over lines, an alias toggled inside a
    // parenthesized import (HR006 on `ckpt(…)` comes and goes), net.eval() ↔ net.train() before a
    // module-level loop in another statement (HR004 comes and goes), a helper's store and what its
    // caller passes it detached or not (HR002 in the helper), and a new import once.
    let text = [0, 1, 2]
      .map(
        (k) =>
          `def evaluate_${k}(model, loader):\n    total = 0\n    for x, y in loader:\n        loss = criterion(model(x), y)\n        total += loss\n    return total\n`,
      )
      .join('\n');
    text = `import torch\nfrom torch.utils.checkpoint import (\n    checkpoint,\n)\n${text}
class Runner:
    def validate(self, model, loader):
        model.eval()
        for x, y in loader:
            out = model(x)

class Data(torch.utils.data.Dataset):
    def __getitem__(self, i):
        return self.x[i].cuda()

dl = torch.utils.data.DataLoader(Data(), num_workers=0)
losses = []
for x, y in dl:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss)
x = torch.cuda.memory_cached()
y = ckpt(block, x)
net.eval()
for x in dl:
    pred = net(x)

def step_fn(model, x, y):
    loss = criterion(model(x), y)
    return loss

def train_all(model, dl):
    total = 0
    for x, y in dl:
        total += step_fn(model, x, y)
    return total

def run_batches(model, dl):
    for x in dl:
        out = model(x)

def main(model, dl):
    model.eval()
    run_batches(model, dl)

def keep(out, outs):
    outs.append(out)

def collect(model, dl):
    outs = []
    for x in dl:
        out = model(x)
        keep(out, outs)
    return outs
`;
    // Seed 11 is the sequence the checks on what is in play were written for; the others check only that the session equals a full lint.
    const start = text;
    for (const first of [11, 3, 5, 7, 13, 17]) {
      text = start;
      const strict = first === 11;
      const s = new LintSession(parser);
      s.update(text);
      let seed = first;
      const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >>> 16) % n);
      const key = (f: Finding) => `${f.rule}@${f.startIndex}:${f.start.line}:${f.start.col}-${f.end.line}:${f.end.col}:${f.severity}`;
      const kinds = new Set<string>();
      for (let step = 0; step < 80; step++) {
        const lines = text.split('\n');
        const ln = rnd(lines.length);
        const lineStart = lines.slice(0, ln).join('\n').length + (ln ? 1 : 0);
        let c: TextChange;
        const toggle = [...text.matchAll(/total \+= loss(\.item\(\))?\n/g)];
        // Steps 20–22: the helper stores what it is given, and its caller passes it a graph, then not, then again.
        const forced =
          step === 20 && text.includes('outs.append(out.detach())') ? 'store' : step === 21 || step === 22 ? 'passes' : undefined;
        const kind =
          step === 40
            ? 'import'
            : (forced ??
              ['fix', 'decorator', 'workers', 'split', 'comment', 'space', 'alias', 'mode', 'helper', 'caller', 'store', 'passes'][
                rnd(12)
              ]!);
        kinds.add(kind);
        if (strict && step === 21)
          assert.ok(
            lintText(parser, text).findings.some(
              (f) => f.rule === 'HR002' && f.start.line === text.split('\n').findIndex((l) => l === '    outs.append(out)'),
            ),
            'HR002 in the helper',
          );
        if (kind === 'import') c = change(text, 0, 0, 'import torch.nn.functional as F\n');
        else if (kind === 'fix' && toggle.length) {
          const m = toggle[rnd(toggle.length)]!;
          const at = m.index! + 'total += loss'.length;
          c = m[1] ? change(text, at, at + '.item()'.length, '') : change(text, at, at, '.item()');
        } else if (kind === 'decorator') {
          const dec = text.indexOf('    @torch.no_grad()\n');
          const at = text.indexOf('    def validate');
          c = dec >= 0 ? change(text, dec, dec + '    @torch.no_grad()\n'.length, '') : change(text, at, at, '    @torch.no_grad()\n');
        } else if (kind === 'workers') {
          const m = /num_workers=(\d)/.exec(text)!;
          c = change(text, m.index + 'num_workers='.length, m.index + m[0].length, m[1] === '0' ? '4' : '0');
        } else if (kind === 'mode') {
          // The mode switch is its own statement: the loop after it (HR004) is in another.
          const at = text.indexOf('net.') + 'net.'.length;
          c = text.startsWith('eval', at) ? change(text, at, at + 4, 'train') : change(text, at, at + 5, 'eval');
        } else if (kind === 'helper') {
          // What a helper returns decides a finding in the loop that calls it, in another function.
          const at = text.indexOf('    return loss') + '    return loss'.length;
          c = text.startsWith('.item()', at) ? change(text, at, at + '.item()'.length, '') : change(text, at, at, '.item()');
        } else if (kind === 'caller') {
          // A caller's no_grad decides HR004 in the function it calls.
          const at = /^ {4}(?:with torch\.no_grad\(\): )?run_batches\(model, dl\)/m.exec(text)!.index + 4;
          const w = 'with torch.no_grad(): ';
          c = text.startsWith(w, at) ? change(text, at, at + w.length, '') : change(text, at, at, w);
        } else if (kind === 'store' || kind === 'passes') {
          // A helper stores what a loop in another function passes it (HR002 reported in the helper): edit either side.
          const at =
            text.indexOf(kind === 'store' ? '    outs.append(out' : '        keep(out') +
            (kind === 'store' ? '    outs.append(out' : '        keep(out').length;
          c = text.startsWith('.detach()', at) ? change(text, at, at + '.detach()'.length, '') : change(text, at, at, '.detach()');
        } else if (kind === 'alias') {
          // Inside a parenthesized import, on a line without the word import: the bindings change.
          const at = text.indexOf('    checkpoint') + '    checkpoint'.length;
          c = text.startsWith(' as ckpt', at) ? change(text, at, at + ' as ckpt'.length, '') : change(text, at, at, ' as ckpt');
        } else if (kind === 'split') {
          const at = text.indexOf('criterion(model(x), y)') + 'criterion(model(x),'.length;
          c = change(text, at, at, '\n           ');
        } else if (kind === 'comment' && /^\s*# edit$/.test(lines[ln]!)) c = change(text, lineStart, lineStart + lines[ln]!.length + 1, '');
        else if (kind === 'comment') c = change(text, lineStart, lineStart, `${lines[ln]!.match(/^\s*/)![0]}# edit\n`);
        else c = change(text, lineStart + lines[ln]!.length, lineStart + lines[ln]!.length, ' ');
        text = text.slice(0, c.offset) + c.text + text.slice(c.offset + c.length);
        assert.equal(lintText(parser, text).broken, false, `step ${step} (${kind}) keeps the text valid`);
        const inc = s.update(text, [c]).map(key);
        const full = lintText(parser, text).findings.map(key);
        assert.deepEqual(inc, full, `seed ${first}, after step ${step} (${kind})`);
      }
      if (strict) assert.equal(kinds.size, 13, 'every kind of edit was made');
      const rules = new Set(lintText(parser, text).findings.map((f) => f.rule));
      if (strict) for (const r of ['HR001', 'HR002', 'HR004', 'HR011', 'HR018'] as RuleId[]) assert.ok(rules.has(r), `${r} is in play`);
      s.dispose();
    }
  });

  it('edits that change which names hold a module, or what a method keeps, re-lint the loops that read them', () => {
    let text = `import torch
import torch.nn as nn

class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

class Meter:
    def update(self, val, n=1):
        self.sum += val * n

enc = Enc()

def score(dl):
    outs = []
    for b in dl:
        outs.append(enc(b))
    return len(outs)

def train(model, dl, opt):
    meter = Meter()
    for x in dl:
        loss = model(x).mean()
        loss.backward()
        opt.step()
        meter.update(loss)
`;
    const edits: [string, string][] = [
      ['enc = Enc()', 'enc = make()'],
      ['class Enc(nn.Module):\n    def __init__', 'class Enc(object):\n    def __init__'],
      ['    def forward(self, x):\n        return self.lin', '    def run(self, x):\n        return self.lin'],
      ['self.sum += val * n', 'self.sum += float(val) * n'],
    ];
    const s = new LintSession(parser);
    const key = (f: Finding) => `${f.rule}@${f.start.line}:${f.severity}`;
    const first = s.update(text).map(key);
    assert.ok(first.includes('HR002@20:warning') && first.includes('HR001@13:warning'), first.join(' '));
    const seen = new Set<string>();
    for (let step = 0; step < 12; step++) {
      const [a, b] = edits[step % edits.length]!;
      const [from, to] = text.includes(a) ? [a, b] : [b, a];
      const at = text.indexOf(from);
      const c = change(text, at, at + from.length, to);
      text = text.slice(0, at) + to + text.slice(at + from.length);
      const inc = s.update(text, [c]).map(key);
      assert.deepEqual(inc, lintText(parser, text).findings.map(key), `after step ${step}: ${from} → ${to}`);
      seen.add(inc.join(' '));
    }
    assert.ok(seen.size >= 3, 'the findings came and went');
    s.dispose();
  });

  it('keeps the last good finding while its region does not parse', () => {
    const s = new LintSession(parser);
    s.update(src);
    // Mid-edit: an unclosed call on the loss line breaks the loop's body.
    const at = src.indexOf('criterion(model(x), y)') + 'criterion(model(x), y'.length;
    const broken = src.slice(0, at) + src.slice(at + 1);
    assert.deepEqual(lintText(parser, broken).findings.filter((f) => f.rule === 'HR001').length, 0, 'the broken text alone loses it');
    const kept = s.update(broken, [change(src, at, at + 1, '')]);
    assert.equal(kept.filter((f) => f.rule === 'HR001').length, 1);
    assert.equal(kept[0]!.start.line, 4);
  });

  it('lints a notebook’s cells together and maps findings back to their cell, magics and all', () => {
    const cells = [
      '%matplotlib inline\nimport torch',
      'total = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n    loss.backward()',
    ];
    const { text, starts } = joinCells(cells);
    const fs = lintText(parser, text).findings;
    assert.equal(fs.length, 1);
    const r = splitFinding(fs[0]!, cells, starts)!;
    assert.equal(r.cell, 1);
    assert.deepEqual(r.finding.start, { line: 3, col: 4 });
    assert.equal(applyEdits(cells[1]!, r.finding.fixes[0]!.edits).split('\n')[3], '    total += loss.item()');
  });

  it('globs match workspace-relative paths', () => {
    assert.ok(globToRegExp('tests/**').test('tests/a/b.py'));
    assert.ok(globToRegExp('**/test_*.py').test('test_x.py'));
    assert.ok(globToRegExp('**/test_*.py').test('a/b/test_x.py'));
    assert.ok(!globToRegExp('*.py').test('a/b.py'));
    assert.ok(!globToRegExp('tests/**').test('src/tests.py'));
  });
});

describe('lint rule pages', () => {
  it('every rule has its page in docs/rules, and every page a rule', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { RULES } = await import('../../extension/src/core/lint/lint');
    const pages = readdirSync(join(ROOT, 'docs', 'rules')).map((f) => f.replace(/\.md$/, ''));
    assert.deepEqual(pages.sort(), Object.keys(RULES).sort());
    for (const [id, r] of Object.entries(RULES))
      assert.match(readFileSync(join(ROOT, 'docs', 'rules', `${id}.md`), 'utf8'), new RegExp(`^# ${id} ${r.name}\\n`));
  });
});
