import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { LintConfigError } from '../core/lint/config';
import { LintConfigs } from '../core/lint/configLookup';
import { lintPlan, rulesRun } from '../core/lint/lintPlan';
import type { LintPlan } from '../core/lint/lintPlan';
import { lintText, RULES } from '../core/lint/lint';
import type { LintOptions } from '../core/lint/lint';
import { NotLintedError } from '../core/lint/notLinted';
import { PythonParser } from '../core/lint/syntax/parser';
import type { RuleId } from '../core/lint/types';
import { plain } from '../shared/text';
import { flag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import type { LintedFile, LintFormat } from './lintOutput';
import { formatLintGithub, formatLintJson, formatLintText, LINT_FORMATS } from './lintOutput';
import { formatLintSarif } from './sarif';
import { fsReason, LINT_FILE_BYTES, pythonFiles, readPython, STDIN_BYTES } from './lintFiles';
import { readStdinAll } from './stdin';

export const LINT_USAGE = `usage: headroom lint PATH... [--format text|json|sarif|github] [--json] [--select HR001,HR006]
                          [--config FILE]

  Reports GPU-memory anti-patterns in Python files (directories are searched for *.py; - reads
  one file from standard input, reported as <stdin>).
  --format text (default): one line each, file:line:col: severity HRnnn message (1-based).
  --format json (or --json): every finding with its fixes; lines and columns 1-based.
  --format sarif: SARIF 2.1.0, for GitHub code scanning (github/codeql-action/upload-sarif).
  --format github: GitHub Actions annotations (::error file=…,line=…::message).
  Exits 1 when a finding is an error, 2 when no Python file was found or a file or folder could
  not be read or linted (or on a usage error or a bad configuration), 0 otherwise. A file over
  ${LINT_FILE_BYTES >> 20} MiB is refused (exit 2) before it is read.
  --select HR001,HR004 runs only those rules (default: all but those off by default).
  Configuration, as in the editor: [tool.headroom.lint] in the nearest pyproject.toml up to
  the repository root, or in --config FILE (docs/lint-config.md); --select replaces its choice
  of rules.
  Rules: ${Object.entries(RULES)
    .map(([id, r]) => `${id} ${r.name}`)
    .join(', ')}.
  Examples: headroom lint train.py   headroom lint src/ --format github   git show HEAD:train.py | headroom lint -`;

function lintFormat(p: ReturnType<typeof parseArgs>): LintFormat {
  const f = flag(p, 'format');
  if (f !== undefined && !(LINT_FORMATS as readonly string[]).includes(f))
    throw new UsageError(`--format is ${LINT_FORMATS.join(', ')}; got "${f}"`);
  if (p.flags.has('json') && f !== undefined && f !== 'json')
    throw new UsageError(`--json is --format json: it cannot go with --format ${f}`);
  return p.flags.has('json') ? 'json' : ((f ?? 'text') as LintFormat);
}

/** The parser's WebAssembly files: beside the bundle, or in node_modules when run from source. */
export function wasmDir(): string {
  const candidates = [__dirname, resolve(__dirname, '..', '..', '..', 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm')];
  const found = candidates.find((d) => existsSync(join(d, 'tree-sitter-python.wasm')));
  if (!found) throw new Error(`the Python parser (tree-sitter-python.wasm) is missing; looked in ${candidates.join(', ')}`);
  return found;
}

/** How a file lints (stdin: by the working folder's configuration); a malformed one is a usage error. */
function planOf(file: string, configs: LintConfigs, select?: RuleId[]): LintPlan {
  const own = file === '-' ? undefined : file;
  try {
    return lintPlan(own, configs.configFor(own ?? join(process.cwd(), '-')), undefined, select);
  } catch (e) {
    throw e instanceof LintConfigError ? new UsageError(e.message) : e;
  }
}

export async function lintCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { json: {}, format: { value: true }, select: { value: true }, config: { value: true } });
  if (!p.positional.length) throw new UsageError(LINT_USAGE);
  const format = lintFormat(p);
  const select = flag(p, 'select')
    ?.split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean) as RuleId[] | undefined;
  for (const id of select ?? [])
    if (!(id in RULES)) throw new UsageError(`--select: unknown rule ${id} (known: ${Object.keys(RULES).join(', ')})`);
  const configs = new LintConfigs(flag(p, 'config'));
  const files: { file: string; opts: LintOptions }[] = [];
  let found = false;
  let unlinted = 0;
  for (const path of p.positional) {
    if (path !== '-' && !existsSync(path)) throw new UsageError(`no such file or directory: ${path}`);
    // An unreadable folder (no permission, past PATH_MAX) is said and passed over; the exit code says a part was not linted.
    const here =
      path === '-'
        ? [path]
        : pythonFiles(path, [], (d, why) => {
            unlinted++;
            io.err(`headroom lint: ${plain(d)}: not read (${why})\n`);
          });
    // A path with nothing to lint is said, not passed over: a CI step on the wrong path would pass forever.
    if (!here.length) io.err(`headroom lint: no Python file (.py) in ${plain(path)}\n`);
    found ||= here.length > 0;
    const before = files.length;
    let excludedBy = '';
    for (const file of here) {
      const plan = planOf(file, configs, select);
      if (plan.lint) files.push({ file, opts: plan.opts });
      else excludedBy = plan.excludedBy;
    }
    if (excludedBy && files.length === before)
      io.err(`headroom lint: every Python file in ${plain(path)} is excluded by ${plain(excludedBy)}\n`);
  }
  if (!files.length) return found && !unlinted ? 0 : 2;
  const parser = await PythonParser.load(wasmDir());
  const all: LintedFile[] = [];
  for (const { file, opts } of files) {
    const rel = file === '-' ? '<stdin>' : relative(process.cwd(), file);
    let r: ReturnType<typeof lintText>;
    try {
      const text = file === '-' ? (await readStdinAll(STDIN_BYTES, 'lint the file by its path')).toString('utf8') : readPython(file);
      r = lintText(parser, text, opts);
    } catch (e) {
      // One file unreadable, or that the rules cannot walk (thousands of nested brackets: out of stack), is said, and the rest linted.
      if (e instanceof UsageError) throw e;
      unlinted++;
      io.err(`headroom lint: ${plain(file)}: not linted (${plain(fsReason(e) ?? NotLintedError.from(e).reason)})\n`);
      continue;
    }
    r.tree.delete();
    all.push({ file: rel && !rel.startsWith('..') ? rel : file, findings: r.findings, broken: r.broken });
  }
  if (format === 'json') io.out(formatLintJson(all));
  else if (format === 'sarif') io.out(formatLintSarif(all, [...new Set(files.flatMap((f) => rulesRun(f.opts)))]));
  else {
    io.out(format === 'github' ? formatLintGithub(all) : formatLintText(all));
    for (const f of all)
      if (f.broken) io.err(`headroom lint: ${plain(f.file)} has syntax errors: findings in the broken parts may be missing\n`);
  }
  if (unlinted) return 2;
  return all.some((f) => f.findings.some((x) => x.severity === 'error')) ? 1 : 0;
}
