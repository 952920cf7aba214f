import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { lintText, RULES } from '../../extension/src/core/lint/lint';
import { RULE_LIST } from '../../extension/src/core/lint/rules/registry';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { RuleId } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';
import { loadParser, pythonFiles } from './lintHelpers';

// Each rule declares itself (rules/rule.ts): its id, name, severities, what its findings depend on.
// The declarations are checked against what the rules do on every Python file of the repository
// and the labelled corpus, with every rule on (HR003 included).
describe('the rules’ declarations', () => {
  let parser: PythonParser;
  before(async () => (parser = await loadParser()));

  it('one rule per id, in order, each named as its page', () => {
    assert.deepEqual(
      RULE_LIST.map((r) => r.id),
      Object.keys(RULES),
    );
    assert.deepEqual(
      RULE_LIST.map((r) => r.id),
      RULE_LIST.map((_, i) => `HR${String(i + 1).padStart(3, '0')}`),
    );
    for (const r of RULE_LIST)
      assert.match(readFileSync(join(ROOT, 'docs', 'rules', `${r.id}.md`), 'utf8'), new RegExp(`^# ${r.id} ${r.name}\\n`));
    for (const r of RULE_LIST)
      assert.equal(!!r.fileKey, r.dependsOn.includes('file'), `${r.id}: a file key exactly when it depends on the file`);
  });

  it('every example on a rule’s page fires the rule on each line marked with it', () => {
    for (const r of RULE_LIST) {
      const page = readFileSync(join(ROOT, 'docs', 'rules', `${r.id}.md`), 'utf8');
      const blocks = [...page.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);
      assert.ok(blocks.length, `${r.id}: its page has no example`);
      let checked = 0;
      for (const b of blocks) {
        const src = /^\s*(import torch|from torch)/m.test(b) ? b : `import torch\n${b}`;
        const marked = src.split('\n').flatMap((l, i) => (new RegExp(`#\\s*${r.id}\\b`).test(l) ? [i] : []));
        if (!marked.length) continue;
        const found = new Set(
          lintText(parser, src, { select: [r.id] })
            .findings.filter((f) => f.rule === r.id)
            .map((f) => f.start.line),
        );
        assert.deepEqual(
          marked.filter((i) => !found.has(i)),
          [],
          `${r.id}: marked lines with no finding in\n${src}`,
        );
        checked += marked.length;
      }
      assert.ok(checked > 0, `${r.id}: no line of its examples is marked # ${r.id}`);
    }
  });

  it('every finding has a severity its rule declares, on real code', () => {
    const seen = new Map<RuleId, Set<string>>();
    const files = [
      ...pythonFiles(join(ROOT, 'test', 'fixtures', 'lintcorpus')),
      ...pythonFiles(join(ROOT, 'test', 'e2e')),
      ...pythonFiles(join(ROOT, 'demo')),
    ];
    assert.ok(files.length > 50, String(files.length));
    for (const f of files) {
      for (const x of lintText(parser, readFileSync(f, 'utf8'), { select: RULE_LIST.map((r) => r.id) }).findings) {
        assert.ok(
          RULES[x.rule].severities.includes(x.severity),
          `${f}:${x.start.line + 1} ${x.rule} is ${x.severity}; it declares ${RULES[x.rule].severities.join(', ')}`,
        );
        if (!seen.has(x.rule)) seen.set(x.rule, new Set());
        seen.get(x.rule)!.add(x.severity);
      }
    }
    assert.ok(seen.size >= 12, `only ${[...seen.keys()].join(', ')} fired`);
  });
});
