import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { PythonParser } from '../../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../../extension/src/core/lint/types';
import { fixed, lintWith, loadParser } from '../lintHelpers';

// HR008's tests: its page (docs/rules/HR008.md) says what it finds and when it stays silent.

let parser: PythonParser;
const lint = (src: string, rule?: RuleId): Finding[] => lintWith(parser, src, rule);

describe('HR008 zero-grad-writes-zeros', () => {
  before(async () => {
    parser = await loadParser();
  });

  it('HR008 removes set_to_none=False', () => {
    const src = 'import torch\nopt.zero_grad(set_to_none=False)\nopt.zero_grad(set_to_none=True)\n';
    const fs = lint(src, 'HR008');
    assert.equal(fs.length, 1);
    assert.equal(fixed(src, fs[0]!), src.replace('opt.zero_grad(set_to_none=False)', 'opt.zero_grad()'));
  });
});
