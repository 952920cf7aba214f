import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LintConfigError, PYPROJECT, readLintConfig } from './config';
import type { LintConfig } from './config';

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
