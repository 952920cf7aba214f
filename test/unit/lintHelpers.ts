import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe } from 'node:test';
import { applyEdits, lintText } from '../../extension/src/core/lint/lint';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';

/** The Python parser the extension ships (loaded once per test file, in a before hook). */
export const loadParser = (): Promise<PythonParser> => PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));

/** Findings of one rule (or of the default rules) in a source. */
export const lintWith = (parser: PythonParser, src: string, rule?: RuleId): Finding[] =>
  lintText(parser, src, rule ? { select: [rule] } : {}).findings;

/** The source with a finding's fix applied. */
export const fixed = (src: string, f: Finding, k = 0): string => applyEdits(src, f.fixes[k]!.edits);

/** A template's source without its leading newline, ending in exactly one newline. */
export const code = (s: string): string => s.replace(/^\n/, '').replace(/\n\s*$/, '\n');

/** The Python files under `dir` (not in dot folders, node_modules, __pycache__ or dist), for checks on real code. */
export function pythonFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !e.name.startsWith('.') && !['node_modules', '__pycache__', 'dist'].includes(e.name))
      pythonFiles(join(dir, e.name), out);
    else if (e.name.endsWith('.py')) out.push(join(dir, e.name));
  }
  return out;
}

/**
 * A rule's test file (test/unit/rules/): its describe, the parser loaded before the tests, `lint`
 * bound to it, and `parser()` for the tests that drive a session or lintText themselves.
 */
export function describeRule(
  title: string,
  body: (lint: (src: string, rule?: RuleId) => Finding[], parser: () => PythonParser) => void,
): void {
  let parser: PythonParser;
  describe(title, () => {
    before(async () => {
      parser = await loadParser();
    });
    body(
      (src, rule) => lintWith(parser, src, rule),
      () => parser,
    );
  });
}

/** An eval loop that sums losses with their graphs: HR001's first case, and the driver tests' file. */
export const EVAL_LOOP = code(`
import torch

def evaluate(model, loader, criterion):
    total_loss = 0
    for x, y in loader:
        out = model(x)
        loss = criterion(out, y)
        total_loss += loss  # running sum
    return total_loss / len(loader)
`);
