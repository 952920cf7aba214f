import type { Finding, Severity } from '../core/lint/types';
import { jsonText, plain } from '../shared/text';

/** One linted file: its path as shown (relative to the working folder when inside it). */
export interface LintedFile {
  file: string;
  findings: Finding[];
  /** Syntax errors: findings inside the broken parts may be missing. */
  broken: boolean;
}

export const LINT_FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type LintFormat = (typeof LINT_FORMATS)[number];

/** Findings count lines and columns from 0 (as editors do); people, ruff and ESLint count from 1. */
const oneBased = (p: { line: number; col: number }) => ({ line: p.line + 1, col: p.col + 1 });

/** `file:line:col: severity HRnnn message`, 1-based; data escaped for the terminal. */
export function formatLintText(files: readonly LintedFile[]): string {
  let out = '';
  for (const f of files) {
    for (const x of f.findings) {
      const s = oneBased(x.start);
      out += `${plain(f.file)}:${s.line}:${s.col}: ${x.severity} ${x.rule} ${plain(x.message)}\n`;
    }
  }
  return out;
}

/** `--json`: every finding with its file, lines and columns 1-based (end exclusive, as in ruff). */
export function formatLintJson(files: readonly LintedFile[]): string {
  const findings = files.flatMap((f) =>
    f.findings.map((x) => {
      const { start, end, evidence, ...rest } = x;
      const ev = evidence && {
        ...evidence,
        line: evidence.line + 1,
        loopLine: evidence.loopLine + 1,
        ...(evidence.loopEndLine !== undefined ? { loopEndLine: evidence.loopEndLine + 1 } : {}),
      };
      return { file: f.file, ...rest, start: oneBased(start), end: oneBased(end), ...(ev ? { evidence: ev } : {}) };
    }),
  );
  return jsonText({ files: files.length, findings, broken: files.filter((f) => f.broken).map((f) => f.file) }) + '\n';
}

const GITHUB_LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/** A workflow command's message: `%`, CR and LF escaped as GitHub documents, other controls made visible. */
export function githubData(s: string): string {
  return plain(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** A workflow command's property value: as data, plus `:` and `,` (they end a property). */
export function githubProperty(s: string): string {
  return githubData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * GitHub Actions annotations, one workflow command per finding. Columns only when the finding is
 * on one line: GitHub ignores (or rejects) a column range across lines.
 */
export function formatLintGithub(files: readonly LintedFile[]): string {
  let out = '';
  for (const f of files) {
    for (const x of f.findings) {
      const s = oneBased(x.start);
      const e = oneBased(x.end);
      const props = [`file=${githubProperty(f.file)}`, `line=${s.line}`];
      if (s.line === e.line) props.push(`col=${s.col}`, `endLine=${e.line}`, `endColumn=${e.col}`);
      else props.push(`endLine=${e.line}`);
      props.push(`title=${x.rule}`);
      out += `::${GITHUB_LEVEL[x.severity]} ${props.join(',')}::${githubData(x.message)}\n`;
    }
  }
  return out;
}
