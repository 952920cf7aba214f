import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { applyEdits, lintText } from '../../extension/src/core/lint/lint';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';

// TorchFix's own fixtures for the rules that overlap Headroom's (test/fixtures/torchfix, BSD):
// the same places reported, and its codemod's output from our fixes.
const DIR = join(ROOT, 'test', 'fixtures', 'torchfix');
const CODES: Record<string, RuleId> = { TOR003: 'HR006', TOR101: 'HR007', TOR402: 'HR008' };
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

describe('TorchFix conformance (overlapping rules)', () => {
  let parser: PythonParser;
  before(async () => {
    parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
  });

  for (const name of ['reentrant_checkpoint', 'amp', 'zerograd']) {
    it(`${name}: reports what TorchFix reports, at the same line and column`, () => {
      const want = read(`${name}.txt`)
        .split('\n')
        .filter(Boolean)
        .map((l) => /^(\d+):(\d+) (TOR\d+)/.exec(l)!)
        .map((m) => `${m[1]}:${m[2]} ${CODES[m[3]!]}`);
      const rules = [...new Set(want.map((w) => w.split(' ')[1] as RuleId))];
      const got = lintText(parser, read(`${name}.py`), { select: rules }).findings.map(
        (f) => `${f.start.line + 1}:${f.start.col + 1} ${f.rule}`,
      );
      assert.deepEqual(got, want);
    });
  }

  for (const name of ['reentrant_checkpoint', 'amp']) {
    it(`${name}: our fixes turn TorchFix's codemod input into its output`, () => {
      const src = read(`${name}.in.py`);
      const edits = lintText(parser, src).findings.flatMap((f) => f.fixes.find((x) => x.preferred)?.edits ?? []);
      assert.equal(applyEdits(src, edits), read(`${name}.out.py`));
    });
  }
});
