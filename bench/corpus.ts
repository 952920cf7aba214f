// npm run corpus -- DIR...: lints real-world repositories (not in CI). Each DIR is a checkout (or a
// folder of checkouts); .py files and notebooks' code cells are linted with every rule, HR003 too.
// Prints per rule the findings, and per corpus the files, parser failures (files with syntax
// errors, still linted) and crashes (goal 0); writes every finding to corpus-findings.json for
// labelling. Get the corpora with `git clone` at the commits in ../shared/docs/lint-catalog.md §3.1.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { lintText, RULES } from '../extension/src/core/lint/lint';
import { joinCells, splitFinding } from '../extension/src/core/lint/notebook';
import { PythonParser } from '../extension/src/core/lint/syntax/parser';
import type { Finding, RuleId } from '../extension/src/core/lint/types';

const ROOT = resolve(__dirname, '..');
const SKIP = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !SKIP.has(e.name)) walk(join(dir, e.name), out);
    else if (e.isFile() && (e.name.endsWith('.py') || e.name.endsWith('.ipynb'))) out.push(join(dir, e.name));
  }
}

/** A notebook's code cells, or undefined when it is not valid JSON. */
function cells(path: string): string[] | undefined {
  try {
    const nb = JSON.parse(readFileSync(path, 'utf8')) as { cells?: { cell_type: string; source: string | string[] }[] };
    return (nb.cells ?? []).filter((c) => c.cell_type === 'code').map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  if (!dirs.length) throw new Error('usage: npm run corpus -- DIR...');
  const parser = await PythonParser.load(join(ROOT, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'));
  const all = Object.keys(RULES) as RuleId[];
  const found: (Finding & { file: string; line: number })[] = [];
  const perRule = new Map<RuleId, number>();
  let files = 0;
  let broken = 0;
  let crashes = 0;
  let lines = 0;
  const t0 = performance.now();
  for (const d of dirs) {
    const list: string[] = [];
    if (statSync(d).isDirectory()) walk(d, list);
    for (const f of list) {
      files++;
      try {
        if (f.endsWith('.ipynb')) {
          const cs = cells(f);
          if (!cs) continue;
          const { text, starts } = joinCells(cs);
          lines += text.split('\n').length;
          const r = lintText(parser, text, { select: all });
          if (r.broken) broken++;
          for (const x of r.findings) {
            const s = splitFinding(x, cs, starts);
            found.push({
              ...x,
              file: `${relative(process.cwd(), f)}#cell${(s?.cell ?? 0) + 1}`,
              line: (s?.finding.start.line ?? x.start.line) + 1,
            });
          }
          r.tree.delete();
        } else {
          const text = readFileSync(f, 'utf8');
          lines += text.split('\n').length;
          const r = lintText(parser, text, { select: all });
          if (r.broken) broken++;
          for (const x of r.findings) found.push({ ...x, file: relative(process.cwd(), f), line: x.start.line + 1 });
          r.tree.delete();
        }
      } catch (e) {
        crashes++;
        console.error(`crash: ${f}: ${(e as Error).message}`);
      }
    }
  }
  const ms = performance.now() - t0;
  for (const f of found) perRule.set(f.rule, (perRule.get(f.rule) ?? 0) + 1);
  console.log(
    `${files} files (${lines.toLocaleString('en-US')} lines) in ${dirs.length} corpora, ${(ms / 1000).toFixed(1)} s; files with syntax errors (still linted): ${broken}; crashes: ${crashes}\n`,
  );
  for (const id of all) console.log(`${id} ${RULES[id].name.padEnd(32)} ${String(perRule.get(id) ?? 0).padStart(5)}`);
  writeFileSync(
    'corpus-findings.json',
    JSON.stringify(
      found.map((f) => ({ rule: f.rule, severity: f.severity, file: f.file, line: f.line, message: f.message })),
      null,
      1,
    ),
  );
  console.log('\nevery finding: corpus-findings.json');
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
