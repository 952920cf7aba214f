import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { lintText, RULES } from '../core/lint/lint';
import { PythonParser } from '../core/lint/parser';
import type { Finding, RuleId } from '../core/lint/types';
import { plain } from '../core/text';
import { flag, parseArgs, UsageError } from './args';
import type { Io } from './io';

export const LINT_USAGE = `usage: headroom lint PATH... [--json] [--select HR001,HR006]

  Reports GPU-memory anti-patterns in Python files (directories are searched for *.py), one line
  each: file:line:col: HRnnn message. Exits 1 when a finding is an error, 0 otherwise.
  Rules: ${Object.entries(RULES)
    .map(([id, r]) => `${id} ${r.name}`)
    .join(', ')}.`;

const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', 'site-packages', '.headroom']);

function pythonFiles(path: string, out: string[]): void {
  const st = statSync(path);
  if (st.isFile()) out.push(path);
  else if (st.isDirectory()) {
    for (const e of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) pythonFiles(join(path, e.name), out);
      else if (e.isFile() && e.name.endsWith('.py')) out.push(join(path, e.name));
    }
  }
}

/** The parser's WebAssembly files: beside the bundle, or in node_modules when run from source. */
export function wasmDir(): string {
  const candidates = [__dirname, resolve(__dirname, '..', '..', '..', 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm')];
  const found = candidates.find((d) => existsSync(join(d, 'tree-sitter-python.wasm')));
  if (!found) throw new Error(`the Python parser (tree-sitter-python.wasm) is missing; looked in ${candidates.join(', ')}`);
  return found;
}

export async function lintCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { json: {}, select: { value: true } });
  if (!p.positional.length) throw new UsageError(LINT_USAGE);
  const select = flag(p, 'select')
    ?.split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  for (const id of select ?? []) if (!(id in RULES)) throw new UsageError(`--select: unknown rule ${id} (known: ${Object.keys(RULES).join(', ')})`);
  const files: string[] = [];
  for (const path of p.positional) {
    if (!existsSync(path)) throw new UsageError(`no such file or directory: ${path}`);
    pythonFiles(path, files);
  }
  const parser = await PythonParser.load(wasmDir());
  const all: { file: string; findings: Finding[]; broken: boolean }[] = [];
  for (const file of files) {
    const r = lintText(parser, readFileSync(file, 'utf8'), select ? { select: select as RuleId[] } : {});
    r.tree.delete();
    const rel = relative(process.cwd(), file);
    all.push({ file: rel && !rel.startsWith('..') ? rel : file, findings: r.findings, broken: r.broken });
  }
  if (p.flags.has('json')) io.out(JSON.stringify({ files: all.length, findings: all.flatMap((f) => f.findings.map((x) => ({ file: f.file, ...x }))), broken: all.filter((f) => f.broken).map((f) => f.file) }, null, 1) + '\n');
  else for (const f of all) for (const x of f.findings) io.out(`${plain(f.file)}:${x.start.line + 1}:${x.start.col + 1}: ${x.rule} ${plain(x.message)}\n`);
  return all.some((f) => f.findings.some((x) => x.severity === 'error')) ? 1 : 0;
}
