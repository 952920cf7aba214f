import { globToRegExp } from './glob';
import type { LintConfig } from './config';
import { isExcluded } from './excludeGlob';
import { RULES } from './lint';
import type { LintOptions } from './lint';
import type { RuleId, Severity } from './types';

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
