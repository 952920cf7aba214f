import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../safeFile';
import { parseToml } from '../toml/parse';
import { isTable, TomlError } from '../toml/types';
import type { TomlDoc } from '../toml/types';
import { RULES } from './lint';
import type { RuleId, Severity } from './types';

/**
 * The lint configuration `headroom lint` and the editor share: `[tool.headroom.lint]` in the nearest
 * pyproject.toml (docs/lint-config.md). Where a project has one it decides, whole; the editor's
 * settings apply only where none does, so that CI and the editor report the same findings.
 */
export const PYPROJECT = 'pyproject.toml';
/** Real pyproject.toml files are a few KB: a larger one is refused before it is read. */
export const CONFIG_MAX_BYTES = 1 << 20;
const KEYS = ['select', 'ignore', 'exclude', 'severity'];
const LEVELS = ['error', 'warning', 'info', 'off'];
const GLOB_MAX = 1024;

export class LintConfigError extends Error {
  override name = 'LintConfigError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
    readonly col?: number,
  ) {
    super(`${file}${line ? `:${line}${col ? `:${col}` : ''}` : ''}: ${reason}`);
  }
}

export interface LintConfig {
  /** The pyproject.toml it came from: `exclude` is relative to its folder. */
  file: string;
  select?: RuleId[];
  /** With `severity = "off"` folded in. */
  ignore: RuleId[];
  severity: Partial<Record<RuleId, Severity>>;
  exclude: string[];
}

function readText(file: string): string {
  let buf = Buffer.alloc(0);
  try {
    const { fd, size } = openRegularSync(file);
    try {
      if (size > CONFIG_MAX_BYTES) throw new Error(`${size} bytes, over the ${CONFIG_MAX_BYTES}-byte limit`);
      buf = Buffer.alloc(size);
      let n = 0;
      for (let r = 1; n < size && r > 0; n += r) r = readSync(fd, buf, n, size - n, n);
      buf = buf.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new LintConfigError(file, undefined, (e as Error).message.replace(`cannot read ${file}: `, 'cannot be read: '));
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new LintConfigError(file, undefined, 'not UTF-8 text');
  }
}

/** A file's `[tool.headroom.lint]`, checked; undefined when it has none. Throws LintConfigError. */
export function readLintConfig(file: string): LintConfig | undefined {
  const text = readText(file);
  let doc: TomlDoc;
  try {
    doc = parseToml(text);
  } catch (e) {
    if (e instanceof TomlError) throw new LintConfigError(file, e.line, e.message, e.col);
    throw e;
  }
  const tool = doc.root.tool;
  const hr = isTable(tool) ? tool.headroom : undefined;
  const bad = (why: string, ...p: (string | number)[]) => new LintConfigError(file, doc.lineOf(['tool', 'headroom', ...p]), why);
  if (hr === undefined) return undefined;
  if (!isTable(hr)) throw bad('tool.headroom is not a table');
  for (const k of KEYS) if (Object.hasOwn(hr, k)) throw bad(`${k} belongs in [tool.headroom.lint], not [tool.headroom]`, k);
  const t = hr.lint;
  if (t === undefined) return undefined;
  if (!isTable(t)) throw bad('tool.headroom.lint is not a table', 'lint');
  for (const k of Object.keys(t))
    if (!KEYS.includes(k)) throw bad(`unknown key ${JSON.stringify(k)} in [tool.headroom.lint] (known: ${KEYS.join(', ')})`, 'lint', k);
  const strings = (k: string): string[] | undefined => {
    const v = t[k];
    if (v !== undefined && (!Array.isArray(v) || v.some((s) => typeof s !== 'string')))
      throw bad(`${k} is not an array of strings`, 'lint', k);
    return v as string[] | undefined;
  };
  const rule = (s: string, ...p: (string | number)[]): RuleId => {
    const id = s.trim().toUpperCase();
    if (!Object.hasOwn(RULES, id)) throw bad(`unknown rule ${JSON.stringify(s)} (known: ${Object.keys(RULES).join(', ')})`, 'lint', ...p);
    return id as RuleId;
  };
  const select = strings('select')?.map((s, i) => rule(s, 'select', i));
  const ignore = (strings('ignore') ?? []).map((s, i) => rule(s, 'ignore', i));
  const exclude = strings('exclude') ?? [];
  exclude.forEach((g, i) => {
    if (!g || g.length > GLOB_MAX) throw bad(`an exclude pattern is empty or over ${GLOB_MAX} characters`, 'lint', 'exclude', i);
  });
  const severity: LintConfig['severity'] = {};
  const sev = t.severity ?? {};
  if (!isTable(sev)) throw bad('severity is not a table (severity = { HR001 = "error" })', 'lint', 'severity');
  for (const [k, v] of Object.entries(sev)) {
    const id = rule(k, 'severity', k);
    if (typeof v !== 'string' || !LEVELS.includes(v))
      throw bad(`severity of ${k} is not one of ${LEVELS.join(', ')}`, 'lint', 'severity', k);
    if (v === 'off') ignore.push(id);
    else severity[id] = v as Severity;
  }
  return { file, ...(select ? { select } : {}), ignore, severity, exclude };
}
