import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { linesRan, withEvidence } from '../../extension/src/core/diagnose/evidence';
import type { RunEvidence } from '../../extension/src/core/diagnose/evidence';
import { detectLeaks } from '../../extension/src/core/diagnose/leaks';
import { lintText } from '../../extension/src/core/lint/lint';
import { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding } from '../../extension/src/core/lint/types';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

// Static findings joined with runs: the capture script test/gpu/capture/leaks.py is linted, and each
// of its four recorded loops (H100) confirms or clears the findings on its own loop.
const SCRIPT = join(ROOT, 'test', 'gpu', 'capture', 'leaks.py');
const sameFile = (p: string) => p.endsWith('test/gpu/capture/leaks.py');
let findings: Finding[];

async function run(name: string): Promise<RunEvidence> {
  const s = await loadSnapshotFile(join(ROOT, 'test', 'fixtures', 'leaks', `${name}.pickle`));
  const a = analyzeDevice(s, 0);
  return { run: name, leak: detectLeaks(s, a), sameFile, ran: linesRan(s, a, sameFile) };
}
const at = (fs: Finding[], rule: string, line: number) => fs.find((f) => f.rule === rule && f.start.line + 1 === line)!;
const truth = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'leaks', `${name}.truth.json`), 'utf8')) as { lines: Record<string, number> };

describe('lint findings with run evidence', () => {
  before(async () => {
    const parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
    findings = lintText(parser, readFileSync(SCRIPT, 'utf8')).findings;
  });

  it('total_loss += loss after backward: the run measured 0 B per iteration, so a hint that says so', async () => {
    const line = truth('total_loss_train').lines.acc_train!;
    const before = at(findings, 'HR001', line);
    assert.equal(before.severity, 'warning');
    const after = at(withEvidence(findings, [await run('total_loss_train')]), 'HR001', line);
    assert.equal(after.severity, 'info');
    assert.match(after.message, /Run total_loss_train measured 0 B per iteration here: it costs nothing on the GPU/);
  });

  it('the same in an eval loop without no_grad: confirmed with the growth per iteration, still an error', async () => {
    const t = truth('total_loss_eval');
    const fs = withEvidence(findings, [await run('total_loss_eval')]);
    const acc = at(fs, 'HR001', t.lines.acc_eval!);
    assert.equal(acc.severity, 'error');
    assert.match(
      acc.message,
      new RegExp(`Confirmed by run total_loss_eval: \\+\\d+ KiB per iteration \\(created at line ${t.lines.eval_out}`),
    );
    assert.match(at(fs, 'HR004', t.lines.eval_out! - 2).message, /Confirmed by run total_loss_eval/);
  });

  it('losses kept in a list: confirmed by the append run; the accumulator beside it is not (it never ran there)', async () => {
    const fs = withEvidence(findings, [await run('leak_append')]);
    const append = fs.find((f) => f.rule === 'HR002')!;
    assert.match(
      append.message,
      new RegExp(`Confirmed by run leak_append: \\+250 KiB per iteration \\(created at line ${truth('leak_append').lines.out}\\)`),
    );
    const acc = at(fs, 'HR001', truth('total_loss_train').lines.acc_train!);
    assert.equal(acc.message, at(findings, 'HR001', truth('total_loss_train').lines.acc_train!).message);
  });

  it('a clean run of the loop clears nothing it did not execute', async () => {
    const fs = withEvidence(findings, [await run('clean_train')]);
    assert.deepEqual(
      fs.map((f) => [f.rule, f.severity, f.message]),
      findings.map((f) => [f.rule, f.severity, f.message]),
    );
  });
});
