import { closeSync, existsSync, readSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { openRegularSync } from '../safeFile';
import { globToRegExp } from './glob';
import { RULES } from './lint';
import type { LintOptions } from './lint';
import { parseToml, TomlError } from './toml';
import type { TomlDoc, TomlValue } from './toml';
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

const isTable = (v: TomlValue | undefined): v is Record<string, TomlValue> => typeof v === 'object' && !Array.isArray(v);

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

/**
 * Each file's configuration: the nearest pyproject.toml with `[tool.headroom.lint]`, looked for from
 * the file's folder up to a repository's root (a folder with .git) or the file system's; found once
 * per folder until clear(). With `fixed` (`headroom lint --config`), that file for every file.
 */
export class LintConfigs {
  private readonly byDir = new Map<string, LintConfig | LintConfigError | null>();

  constructor(private readonly fixed?: string) {}

  /** Throws the LintConfigError of a malformed file. */
  configFor(file: string): LintConfig | undefined {
    const found = this.fixed ? this.fixedOne(resolve(this.fixed)) : this.lookup(dirname(resolve(file)));
    if (found instanceof LintConfigError) throw found;
    return found ?? undefined;
  }

  clear(): void {
    this.byDir.clear();
  }

  private fixedOne(file: string): LintConfig | LintConfigError {
    let found = this.byDir.get(file);
    if (found === undefined) {
      found = tryRead(file) ?? new LintConfigError(file, undefined, 'has no [tool.headroom.lint] table');
      this.byDir.set(file, found);
    }
    return found as LintConfig | LintConfigError;
  }

  private lookup(start: string): LintConfig | LintConfigError | null {
    const seen: string[] = [];
    let found: LintConfig | LintConfigError | null = null;
    for (let dir = start; ; dir = dirname(dir)) {
      const known = this.byDir.get(dir);
      if (known !== undefined) {
        found = known;
        break;
      }
      seen.push(dir);
      const f = join(dir, PYPROJECT);
      found = existsSync(f) ? (tryRead(f) ?? null) : null;
      if (found || dirname(dir) === dir || existsSync(join(dir, '.git'))) break;
    }
    for (const d of seen) this.byDir.set(d, found);
    return found;
  }
}

function tryRead(file: string): LintConfig | LintConfigError | undefined {
  try {
    return readLintConfig(file);
  } catch (e) {
    if (e instanceof LintConfigError) return e;
    throw e;
  }
}

/** The editor's own settings (`headroom.lint.rules`, `.exclude`), for files no project table covers. */
export interface EditorLintSettings {
  severity: Partial<Record<RuleId, Severity | 'off'>>;
  exclude: readonly string[];
  /** The file's path relative to its workspace folder, which `exclude` matches. */
  rel: string;
}

export type LintPlan = { lint: true; opts: LintOptions } | { lint: false; excludedBy: string };

/**
 * How one file is linted, decided alike for `headroom lint` and the editor: by the project's table
 * when one applies (`select`, from `--select`, replaces its select and ignore), else by the editor's
 * settings, else the defaults.
 */
export function lintPlan(
  file: string | undefined,
  config: LintConfig | undefined,
  editor?: EditorLintSettings,
  select?: readonly RuleId[],
): LintPlan {
  if (config) {
    if (file !== undefined && isExcluded(config, file)) return { lint: false, excludedBy: config.file };
    const severity: LintOptions['severity'] = { ...config.severity };
    if (select) return { lint: true, opts: { select, severity } };
    for (const id of config.ignore) severity[id] = 'off';
    return { lint: true, opts: { ...(config.select ? { select: config.select } : {}), severity } };
  }
  if (editor?.exclude.some((g) => globToRegExp(g).test(editor.rel))) return { lint: false, excludedBy: 'headroom.lint.exclude' };
  return { lint: true, opts: { ...(select ? { select } : {}), ...(editor ? { severity: editor.severity } : {}) } };
}

/** The rules a lint with these options runs (as lintTree decides), in `select`'s order when given. */
export function rulesRun(opts: LintOptions): RuleId[] {
  const on = (id: RuleId) => opts.severity?.[id] !== 'off';
  if (opts.select) return opts.select.filter(on);
  return (Object.keys(RULES) as RuleId[]).filter((id) => on(id) && (!RULES[id].off || !!opts.severity?.[id]));
}

/** Whether an exclude pattern matches the file, or a folder it is in, relative to the config's folder. */
export function isExcluded(config: LintConfig, file: string): boolean {
  const rel = relative(dirname(config.file), resolve(file)).split(sep).join('/');
  const paths = rel.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  return config.exclude.some((g) => {
    const toks = globTokens(g);
    return paths.some((p) => globMatch(toks, p));
  });
}

// Glob tokens: a character code, or one of these. The same dialect as glob.ts (the settings' excludes),
// matched without a RegExp: a stranger's `*a*a*a*b` would make a backtracking one run for ever.
const ONE = -1; // ?
const STAR = -2; // * within a name
const ANY = -3; // ** not followed by /
const DIRS = -4; // **/ : no folders or any

function globTokens(glob: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**', i)) {
      const dirs = glob[i + 2] === '/';
      out.push(dirs ? DIRS : ANY);
      i += dirs ? 2 : 1;
    } else out.push(glob[i] === '*' ? STAR : glob[i] === '?' ? ONE : glob.charCodeAt(i));
  }
  return out;
}

/** A set-of-states walk: states 0..n are token positions (n matched), n+1+p is inside token p's `**\/`. */
function globMatch(toks: readonly number[], path: string): boolean {
  const n = toks.length;
  const close = (s: Uint8Array) => {
    for (let p = 0; p < n; p++) if (s[p] && (toks[p] === STAR || toks[p] === ANY || toks[p] === DIRS)) s[p + 1] = 1;
    return s;
  };
  let cur = close(new Uint8Array(2 * n + 2).fill(1, 0, 1));
  for (let i = 0; i < path.length; i++) {
    const ch = path.charCodeAt(i);
    const slash = ch === 47;
    const next = new Uint8Array(2 * n + 2);
    for (let p = 0; p < n; p++) {
      const t = toks[p]!;
      if (cur[n + 1 + p]) {
        next[n + 1 + p] = 1;
        if (slash) next[p + 1] = 1;
      }
      if (!cur[p]) continue;
      if (t === ch || (t === ONE && !slash)) next[p + 1] = 1;
      else if ((t === STAR && !slash) || t === ANY) next[p] = 1;
      else if (t === DIRS) {
        next[n + 1 + p] = 1;
        if (slash) next[p + 1] = 1;
      }
    }
    cur = close(next);
  }
  return cur[n] === 1;
}
