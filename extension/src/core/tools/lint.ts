import { closeSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { attributeAt } from '../analysis/attributeAt';
import { detectLeaks } from '../diagnose/leaks';
import { formatBytes } from '../../shared/format';
import { LintConfigError } from '../lint/config';
import { LintConfigs } from '../lint/configLookup';
import { lintText } from '../lint/lint';
import { lintPlan } from '../lint/lintPlan';
import type { PythonParser } from '../lint/syntax/parser';
import { openRegularSync } from '../safeFile';

import { openSource, PAGE_PROP, int, str } from './input';
import { paged } from './page';
import { ToolInputError } from './types';
import type { ToolDef } from './types';

/** Python files larger than this are not linted by the tool (the CLI lints them). */
const MAX_FILE = 2 << 20;

function readPython(path: string): string {
  let f;
  try {
    f = openRegularSync(path);
  } catch {
    throw new ToolInputError(`${path} is not a regular file`);
  }
  closeSync(f.fd);
  if (f.size > MAX_FILE) throw new ToolInputError(`${path} is over ${formatBytes(MAX_FILE)}: lint it with headroom lint`);
  return readFileSync(path, 'utf8');
}

/** Lint findings for a Python file, each with what a run shows on its line when a run is given. */
export function lintTool(parser: () => Promise<PythonParser>): ToolDef {
  return {
    name: 'headroom_lint',
    title: 'Find GPU memory bugs in a PyTorch file',
    description:
      'Lints a Python file for PyTorch GPU-memory bugs (losses accumulated with their graphs, tensors kept across iterations, evaluation without no_grad…), each finding at file:line with its rule. Given a snapshot or run folder of that code, each finding also says what the run measured on its line.',
    inputSchema: {
      type: 'object',
      properties: {
        file: { type: 'string', description: 'The Python file to lint' },
        run: { type: 'string', description: 'Optional: a snapshot or run folder of this code, for evidence' },
        page: PAGE_PROP,
      },
      required: ['file'],
      additionalProperties: false,
    },
    paths: ['file', 'run'],
    async run(args, files) {
      const file = resolve(str(args, 'file')!);
      // The project's [tool.headroom.lint] table, as headroom lint and the editor read it.
      let plan: ReturnType<typeof lintPlan>;
      try {
        plan = lintPlan(file, new LintConfigs().configFor(file));
      } catch (e) {
        throw e instanceof LintConfigError ? new ToolInputError(e.message) : e;
      }
      if (!plan.lint) return `${file}: not linted: excluded by ${plan.excludedBy}`;
      const text = readPython(file);
      const r = lintText(await parser(), text, plan.opts);
      r.tree.delete();
      const held = new Map<number, string>();
      let leaks: { line: number; bytes: number }[] = [];
      const runPath = str(args, 'run', false);
      if (runPath) {
        const o = await openSource(runPath, undefined, files);
        const same = (f: string) => f === file || basename(f) === basename(file);
        const at = attributeAt(o.snapshot, o.analysis, o.analysis.replay.peak);
        for (const l of at.lines)
          if (same(l.file) && l.inclusiveBytes > 0)
            held.set(l.line, `the run holds ${formatBytes(l.selfBytes)} here at its peak (${formatBytes(l.inclusiveBytes)} inclusive)`);
        leaks = detectLeaks(o.snapshot, o.analysis)
          .lines.filter((l) => same(l.file))
          .map((l) => ({ line: l.line, bytes: l.bytesPerIteration }));
      }
      const lines = [
        `${file}: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}${r.broken ? ' (the file has syntax errors: findings in the broken parts may be missing)' : ''}`,
      ];
      for (const f of r.findings) {
        const line = f.start.line + 1;
        lines.push(`  ${file}:${line}:${f.start.col + 1}: ${f.severity} ${f.rule} ${f.message}`);
        // A finding about a loop is confirmed by a leak the run measured inside that loop.
        const ev = f.evidence;
        const inLoop = ev ? leaks.filter((l) => l.line >= ev.loopLine + 1 && l.line <= (ev.loopEndLine ?? ev.loopLine) + 1) : [];
        if (inLoop.length)
          lines.push(
            `    run: the loop leaks ${formatBytes(inLoop.reduce((x, l) => x + l.bytes, 0))} per iteration, created at line${inLoop.length > 1 ? 's' : ''} ${inLoop.map((l) => l.line).join(', ')}`,
          );
        else if (held.has(line)) lines.push(`    run: ${held.get(line)}`);
      }
      return paged(lines, int(args, 'page', 1));
    },
  };
}
