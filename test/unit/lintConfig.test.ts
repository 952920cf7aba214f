// The lint configuration `headroom lint` and the editor share: pyproject.toml's [tool.headroom.lint]
// (docs/lint-config.md), its TOML reader on real and hostile files, and the CLI and the editor's
// decision agreeing finding for finding on a real project.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { LintConfigError, readLintConfig } from '../../extension/src/core/lint/config';
import type { LintConfig } from '../../extension/src/core/lint/config';
import { LintConfigs } from '../../extension/src/core/lint/configLookup';
import { isExcluded } from '../../extension/src/core/lint/excludeGlob';
import { globToRegExp } from '../../extension/src/core/lint/glob';
import { lintPlan } from '../../extension/src/core/lint/lintPlan';
import type { EditorLintSettings } from '../../extension/src/core/lint/lintPlan';
import { LintSession } from '../../extension/src/core/lint/session';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { parseToml } from '../../extension/src/core/toml/parse';
import { TOML_MAX_DEPTH, TomlError } from '../../extension/src/core/toml/types';
import { CLI } from './cliProcess';
import { ROOT } from './helpers';
import { loadParser } from './lintHelpers';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `headroom-lintcfg-${name}-`));
/** A table as plain JSON (the reader's tables have no prototype; deepEqual compares prototypes). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** The error a call throws, which must be of the given class. */
function thrown<E extends Error>(cls: new (...a: never[]) => E, f: () => unknown): E {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected ${cls.name}, nothing was thrown`);
}

// A pyproject.toml as projects write them: other tools' tables, comments, multi-line arrays,
// quoted and dotted keys, arrays of tables, multi-line and literal strings, a date.
const REAL = `# Project metadata
[build-system]
requires = ["setuptools>=68", "wheel"]   # build backend
build-backend = "setuptools.build_meta"

[project]
name = "trainer"
version = "0.3.1"
description = """
Trains \\
    models."""
readme = { file = "README.md", content-type = "text/markdown" }
authors = [{ name = "Ada", email = "ada@example.com" }]
dependencies = [
  "torch>=2.1",  # CUDA builds
  'numpy<2',

  "tqdm",
]
released = 1979-05-27T07:32:00Z
urls."Bug Tracker" = "https://example.com/issues"

[project.optional-dependencies]
dev = ["pytest", "ruff==0.4.4"]

[tool.ruff]
line-length = 100
target-version = 'py310'

[tool.ruff.lint.per-file-ignores]
"tests/*" = ["S101"]
'scripts\\*.py' = ["T201"]

[[tool.mypy.overrides]]
module = "torchvision.*"
ignore_missing_imports = true

[[tool.mypy.overrides]]
module = ["scipy", "pandas"]

[tool.headroom.lint]
ignore = [
  "HR004",   # our evaluation loops run under a no_grad decorator
]
exclude = ["legacy", "**/generated_*.py"]
severity = { HR001 = "info", "HR006" = "error" }
`;

describe('the TOML reader', () => {
  it('reads a real pyproject.toml: every table, every kind of value', () => {
    const doc = parseToml(REAL);
    const r = plain(doc.root);
    assert.deepEqual(r['build-system'], { requires: ['setuptools>=68', 'wheel'], 'build-backend': 'setuptools.build_meta' });
    assert.equal(r.project.description, 'Trains models.');
    assert.deepEqual(r.project.readme, { file: 'README.md', 'content-type': 'text/markdown' });
    assert.deepEqual(r.project.authors, [{ name: 'Ada', email: 'ada@example.com' }]);
    assert.deepEqual(r.project.dependencies, ['torch>=2.1', 'numpy<2', 'tqdm']);
    assert.equal(r.project.released, '1979-05-27T07:32:00Z');
    assert.deepEqual(r.project.urls, { 'Bug Tracker': 'https://example.com/issues' });
    assert.deepEqual(r.project['optional-dependencies'], { dev: ['pytest', 'ruff==0.4.4'] });
    assert.deepEqual(r.tool.ruff, {
      'line-length': 100,
      'target-version': 'py310',
      lint: { 'per-file-ignores': { 'tests/*': ['S101'], 'scripts\\*.py': ['T201'] } },
    });
    assert.deepEqual(r.tool.mypy.overrides, [{ module: 'torchvision.*', ignore_missing_imports: true }, { module: ['scipy', 'pandas'] }]);
    assert.deepEqual(r.tool.headroom.lint.severity, { HR001: 'info', HR006: 'error' });
    // Lines as written, for errors that point at them (an array's elements by index).
    assert.equal(doc.lineOf(['tool', 'headroom', 'lint', 'ignore', 0]), 43);
    assert.equal(doc.lineOf(['tool', 'mypy', 'overrides', 1, 'module']), 39);
    assert.equal(doc.lineOf(['nonesuch']), undefined);
  });

  it('numbers, escapes and strings as TOML 1.0 defines them', () => {
    const r = parseToml(
      [
        'int = +1_000',
        'neg = -17',
        'hex = 0xDEAD_beef',
        'oct = 0o755',
        'bin = 0b1101',
        'flt = 6.626e-34',
        'pinf = +inf',
        'ninf = -inf',
        'nan = nan',
        'yes = true',
        'day = 1979-05-27',
        'local = 1979-05-27 07:32:00.999',
        'clock = 07:32:00',
        'esc = "tab\\t quote\\" slash\\\\ \\u00e9 \\U0001F600"',
        "lit = 'C:\\Users\\n'",
        'ml = """\nRoses ""are"" red \\\n   violets"""',
        "mlq = '''it''s'''",
        'end = """ends in two quotes"""""',
        '"quoted key" = 1',
        'a.b . c = 2',
        'a.d = 3',
      ].join('\r\n'),
    ).root;
    assert.deepEqual(plain({ ...r, pinf: 0, ninf: 0, nan: 0 }), {
      int: 1000,
      neg: -17,
      hex: 0xdeadbeef,
      oct: 0o755,
      bin: 0b1101,
      flt: 6.626e-34,
      pinf: 0,
      ninf: 0,
      nan: 0,
      yes: true,
      day: '1979-05-27',
      local: '1979-05-27 07:32:00.999',
      clock: '07:32:00',
      esc: 'tab\t quote" slash\\ é 😀',
      lit: 'C:\\Users\\n',
      ml: 'Roses ""are"" red violets',
      mlq: "it''s",
      end: 'ends in two quotes""',
      'quoted key': 1,
      a: { b: { c: 2 }, d: 3 },
    });
    assert.equal(r.pinf, Infinity);
    assert.equal(r.ninf, -Infinity);
    assert.ok(Number.isNaN(r.nan));
  });

  it('malformed files: a TomlError at the line and column of the mistake', () => {
    const cases: [string, number, number, RegExp][] = [
      ['a = "unclosed\nb = 1', 1, 5, /no closing "/],
      ['\n\nx = "bad \\q escape"', 3, 10, /\\q is not an escape/],
      ['x = "\\uD800"', 1, 6, /not a Unicode scalar value/],
      ['x = "\\u12"', 1, 6, /not a Unicode scalar value/],
      ['x = "\\U00110000"', 1, 6, /not a Unicode scalar value/],
      ['x = 1\nx = 2', 2, 1, /x is defined twice/],
      ['[a]\nb = 1\n[a]', 3, 1, /\[a\] is defined twice/],
      ['a = 1\n[[a]]', 2, 1, /a is already a value/],
      ['a = { b = 1 }\n[a.c]', 2, 1, /a is already a value/],
      ['a = { b = 1, }', 1, 14, /comma before }/],
      ['name "x"', 1, 6, /expected = after the key/],
      ['[tool\nx = 1', 1, 6, /expected \] to end the table header/],
      ['x = [1, 2', 1, 10, /expected , or \]/],
      ['x = 1 2', 1, 7, /expected the end of the line/],
      ['x = "a\x01b"', 1, 7, /control character/],
      ['x = yes', 1, 5, /not a TOML value: yes/],
      ['x = 01', 1, 5, /not a TOML value: 01/],
      ["x = '''never closed", 1, 5, /no closing '''/],
      ['x = """four"""""""', 1, 12, /too many "/],
    ];
    for (const [src, line, col, msg] of cases) {
      const e = thrown(TomlError, () => parseToml(src));
      assert.match(e.message, msg, src);
      assert.deepEqual([e.line, e.col], [line, col], `${JSON.stringify(src)}: ${e.message}`);
    }
  });

  it('hostile nesting is refused with a TomlError, not a stack overflow', () => {
    for (const src of [`x = ${'['.repeat(200_000)}`, `x = ${'{ a = '.repeat(100_000)}1`, `${'a.'.repeat(10_000)}b = 1`]) {
      const e = thrown(TomlError, () => parseToml(src));
      assert.match(e.message, new RegExp(`${TOML_MAX_DEPTH}`));
    }
    // Nesting up to the limit reads.
    const ok = `x = ${'['.repeat(TOML_MAX_DEPTH - 1)}1${']'.repeat(TOML_MAX_DEPTH - 1)}`;
    assert.equal(JSON.stringify(parseToml(ok).root.x), `${'['.repeat(TOML_MAX_DEPTH - 1)}1${']'.repeat(TOML_MAX_DEPTH - 1)}`);
  });

  it('a key named __proto__ is a key, not a prototype', () => {
    const r = parseToml('__proto__ = { polluted = true }\n[constructor]\nprototype = 1').root;
    assert.deepEqual(Object.keys(r), ['__proto__', 'constructor']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(r), null);
  });
});

describe('[tool.headroom.lint]', () => {
  it('reads select, ignore, exclude and severity, whichever TOML spelling', () => {
    const dir = tmp('read');
    writeFileSync(join(dir, 'pyproject.toml'), REAL);
    const c = readLintConfig(join(dir, 'pyproject.toml'))!;
    assert.deepEqual(c, {
      file: join(dir, 'pyproject.toml'),
      ignore: ['HR004'],
      severity: { HR001: 'info', HR006: 'error' },
      exclude: ['legacy', '**/generated_*.py'],
    });
    // The same as a table of its own and dotted keys; "off" is ignore; codes in any case.
    writeFileSync(
      join(dir, 'other.toml'),
      '[tool.headroom.lint]\nselect = ["hr001", "HR006"]\n[tool.headroom.lint.severity]\nHR006 = "error"\n"HR001" = "off"\n',
    );
    assert.deepEqual(readLintConfig(join(dir, 'other.toml')), {
      file: join(dir, 'other.toml'),
      select: ['HR001', 'HR006'],
      ignore: ['HR001'],
      severity: { HR006: 'error' },
      exclude: [],
    });
    writeFileSync(join(dir, 'none.toml'), '[tool.ruff]\nselect = ["E"]\n[tool.headroom.run]\nx = 1\n');
    assert.equal(readLintConfig(join(dir, 'none.toml')), undefined);
  });

  it('mistakes are a LintConfigError naming the file and line', () => {
    const dir = tmp('bad');
    const cases: [string, number | undefined, RegExp][] = [
      ['[tool.headroom.lint]\nselect = [\n  "HR001",\n  "HR999",\n]', 4, /unknown rule "HR999"/],
      ['[tool.headroom.lint.severity]\nHR001 = "error"\nHR042 = "info"', 3, /unknown rule "HR042"/],
      ['[tool.headroom.lint]\nseverity = { HR001 = "fatal" }', 2, /severity of HR001 is not one of error, warning, info, off/],
      ['[tool.headroom.lint]\nexclud = ["x"]', 2, /unknown key "exclud" .*known: select, ignore, exclude, severity/],
      ['[tool.headroom]\nignore = ["HR001"]', 2, /ignore belongs in \[tool.headroom.lint\]/],
      ['[tool.headroom.lint]\nexclude = "tests"', 2, /exclude is not an array of strings/],
      ['[tool.headroom]\nlint = 1', 2, /tool.headroom.lint is not a table/],
      ['[tool.headroom.lint]\nignore = ["HR001"\n', 3, /expected , or \]/],
    ];
    for (const [i, [src, line, msg]] of cases.entries()) {
      const f = join(dir, `p${i}.toml`);
      writeFileSync(f, src);
      const e = thrown(LintConfigError, () => readLintConfig(f));
      assert.match(e.message, msg, src);
      assert.equal(e.file, f);
      assert.equal(e.line, line, `${src}: ${e.message}`);
      assert.ok(e.message.startsWith(`${f}:${line}:`), e.message);
    }
  });

  it('files no pyproject.toml could be: huge, a FIFO, not UTF-8 (refused before reading)', () => {
    const dir = tmp('hostile');
    // 16 GiB, sparse: read whole, it would take minutes or fail allocating; refused by its size.
    const big = join(dir, 'big.toml');
    writeFileSync(big, '[tool.headroom.lint]\n');
    truncateSync(big, 16 * 1024 ** 3);
    const t0 = Date.now();
    assert.match(thrown(LintConfigError, () => readLintConfig(big)).reason, /17179869184 bytes, over the 1048576-byte limit/);
    assert.ok(Date.now() - t0 < 1000);
    rmSync(big);
    const fifo = join(dir, 'fifo.toml');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    assert.match(thrown(LintConfigError, () => readLintConfig(fifo)).reason, /FIFO/);
    const latin = join(dir, 'latin1.toml');
    writeFileSync(latin, Buffer.from('name = "caf\xe9"\n', 'latin1'));
    assert.match(thrown(LintConfigError, () => readLintConfig(latin)).reason, /not UTF-8/);
    assert.match(thrown(LintConfigError, () => readLintConfig(join(dir, 'missing.toml'))).reason, /no such file/);
  });

  it('the nearest pyproject.toml with the table, up to the repository root', () => {
    const top = tmp('walk');
    // Above the repository: never read, even with a table.
    writeFileSync(join(top, 'pyproject.toml'), '[tool.headroom.lint]\nignore = ["HR001"]\n');
    const repo = join(top, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'pkg', 'sub'), { recursive: true });
    const configs = new LintConfigs();
    assert.equal(configs.configFor(join(repo, 'pkg', 'sub', 'a.py')), undefined);
    // In the repository's root; a pyproject.toml nearer without the table is passed over.
    writeFileSync(join(repo, 'pyproject.toml'), '[tool.headroom.lint]\nignore = ["HR006"]\n');
    writeFileSync(join(repo, 'pkg', 'pyproject.toml'), '[project]\nname = "pkg"\n');
    assert.equal(configs.configFor(join(repo, 'pkg', 'sub', 'a.py')), undefined, 'found once per folder, until clear()');
    configs.clear();
    assert.equal(configs.configFor(join(repo, 'pkg', 'sub', 'a.py'))?.file, join(repo, 'pyproject.toml'));
    // A nearer one with the table wins; a malformed one is an error, not passed over.
    writeFileSync(join(repo, 'pkg', 'pyproject.toml'), '[tool.headroom.lint]\nselect = ["HR002"]\n');
    writeFileSync(join(repo, 'pkg', 'sub', 'pyproject.toml'), '[tool.headroom.lint\n');
    configs.clear();
    assert.deepEqual(configs.configFor(join(repo, 'pkg', 'b.py'))?.select, ['HR002']);
    assert.equal(thrown(LintConfigError, () => configs.configFor(join(repo, 'pkg', 'sub', 'a.py'))).line, 1);
    // --config FILE: that file for every file; one without the table is a mistake.
    assert.deepEqual(new LintConfigs(join(repo, 'pyproject.toml')).configFor('/elsewhere/x.py')?.ignore, ['HR006']);
    assert.match(
      thrown(LintConfigError, () => new LintConfigs(join(top, 'nope.toml')).configFor('x.py')).message,
      /nope.toml: cannot be read: no such file/,
    );
  });

  it('exclude: the settings’ glob dialect, matching a file or a folder above it, in linear time', () => {
    const cfg = (exclude: string[]): LintConfig => ({ file: '/p/pyproject.toml', ignore: [], severity: {}, exclude });
    const cases: [string, string, boolean][] = [
      ['legacy', 'legacy/old.py', true],
      ['legacy', 'src/legacy/old.py', false],
      ['**/legacy', 'src/legacy/old.py', true],
      ['*.py', 'a.py', true],
      ['*.py', 'src/a.py', false],
      ['tests/**', 'tests/unit/t.py', true],
      ['**/test_*.py', 'test_a.py', true],
      ['**/test_*.py', 'x/y/test_a.py', true],
      ['src/**/gen_?.py', 'src/gen_1.py', true],
      ['src/**/gen_?.py', 'src/a/b/gen_12.py', false],
      ['a.b', 'axb', false],
    ];
    for (const [glob, rel, want] of cases) {
      // The expectation, for a file alone, is the settings' RegExp's (core/lint/glob.ts).
      const ancestors = rel.split('/').map((_, i, p) => p.slice(0, i + 1).join('/'));
      assert.equal(
        ancestors.some((a) => globToRegExp(glob).test(a)),
        want,
        `${glob} ${rel}`,
      );
      assert.equal(isExcluded(cfg([glob]), `/p/${rel}`), want, `${glob} ${rel}`);
    }
    // What makes a backtracking RegExp run for ever, answered at once.
    const t0 = Date.now();
    assert.equal(
      isExcluded(cfg(['*a*a*a*a*a*a*a*a*a*a*a*a*b', '**a**a**a**a**a**a**a**b']), `/p/${'a'.repeat(200)}/${'a'.repeat(200)}`),
      false,
    );
    assert.ok(Date.now() - t0 < 500, `${Date.now() - t0} ms`);
  });
});

// Line 3 is an evaluation loop without no_grad (HR004, error) and line 5 sums its loss with the graph
// (HR001, error); in WARN the loop calls backward(), so the sum at line 6 is a warning (docs/rules/).
const TRAIN = 'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n';
const WARN =
  'import torch\nrunning = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    running += loss\n';

describe('headroom lint honours the same configuration as the editor', () => {
  let parser: PythonParser;
  before(async () => {
    // Always the current sources: a stale dist/ would test old code.
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
    parser = await loadParser();
  });

  /** A real project: git root, pyproject.toml, Python files in folders. */
  function project(pyproject: string | undefined): string {
    const dir = tmp('project');
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, 'legacy'));
    mkdirSync(join(dir, 'nested'));
    if (pyproject !== undefined) writeFileSync(join(dir, 'pyproject.toml'), pyproject);
    // A sub-package's own pyproject.toml, without the table: the project's applies below it too.
    writeFileSync(join(dir, 'nested', 'pyproject.toml'), '[project]\nname = "nested"\n');
    writeFileSync(join(dir, 'train.py'), TRAIN);
    writeFileSync(join(dir, 'warn.py'), WARN);
    writeFileSync(join(dir, 'legacy', 'old.py'), TRAIN);
    writeFileSync(join(dir, 'nested', 'deep.py'), WARN);
    return dir;
  }

  function cli(dir: string, ...args: string[]): { code: number; found: string[]; err: string } {
    const r = spawnSync(process.execPath, [CLI, 'lint', '.', '--format', 'json', ...args], { cwd: dir, encoding: 'utf8' });
    const j = JSON.parse(r.stdout || '{"findings":[]}') as {
      findings: { file: string; rule: string; severity: string; start: { line: number } }[];
    };
    return {
      code: r.status ?? -1,
      found: j.findings.map((f) => `${f.file}:${f.start.line} ${f.rule} ${f.severity}`).sort(),
      err: r.stderr,
    };
  }

  /** What the editor shows for each Python file: its decision (host/lint/settings.ts), then a lint session as typed. */
  function editor(dir: string, settings: Omit<EditorLintSettings, 'rel'>): string[] {
    const configs = new LintConfigs();
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const path = join(d, e.name);
        if (e.isDirectory() && e.name !== '.git') walk(path);
        if (!e.name.endsWith('.py')) continue;
        const rel = relative(dir, path);
        const plan = lintPlan(path, configs.configFor(path), { ...settings, rel });
        if (!plan.lint) continue;
        const s = new LintSession(parser, plan.opts);
        for (const f of s.update(readFileSync(path, 'utf8'))) out.push(`${rel}:${f.start.line + 1} ${f.rule} ${f.severity}`);
        s.dispose();
      }
    };
    walk(dir);
    return out.sort();
  }

  // The user's own settings, which disagree with the project's file on every point.
  const MINE = { severity: { HR001: 'off', HR004: 'warning' }, exclude: ['warn.py'] } as const;

  it('ignore, exclude and severity: the same findings from the CLI and the editor', () => {
    const dir = project(
      '[project]\nname = "demo"\n\n[tool.headroom.lint]\nignore = ["HR004"]\nexclude = ["legacy"]\nseverity = { HR001 = "info" }\n',
    );
    const want = ['nested/deep.py:6 HR001 info', 'train.py:5 HR001 info', 'warn.py:6 HR001 info'];
    const r = cli(dir);
    assert.deepEqual(r.found, want, r.err);
    assert.equal(r.code, 0, 'no error-level finding left');
    assert.deepEqual(editor(dir, { ...MINE, severity: { ...MINE.severity } }), want);
    // Without the table, the same files: every rule at its own severity, nothing excluded.
    const bare = project(undefined);
    const defaults = [
      'legacy/old.py:3 HR004 error',
      'legacy/old.py:5 HR001 error',
      'nested/deep.py:6 HR001 warning',
      'train.py:3 HR004 error',
      'train.py:5 HR001 error',
      'warn.py:6 HR001 warning',
    ];
    assert.deepEqual(cli(bare).found, defaults);
    assert.deepEqual(editor(bare, { severity: {}, exclude: [] }), defaults);
    // …where the editor's settings, the fallback, apply.
    assert.deepEqual(editor(bare, { ...MINE, severity: { ...MINE.severity } }), [
      'legacy/old.py:3 HR004 warning',
      'train.py:3 HR004 warning',
    ]);
  });

  it('select, --select and --config; a malformed file stops the CLI with its line', () => {
    const dir = project('[tool.headroom.lint]\nselect = ["HR004", "HR001"]\nignore = ["HR001"]\nseverity.HR004 = "warning"\n');
    const want = ['legacy/old.py:3 HR004 warning', 'train.py:3 HR004 warning'];
    assert.deepEqual(cli(dir).found, want);
    assert.deepEqual(editor(dir, { severity: {}, exclude: [] }), want);
    // --select replaces the file's select and ignore; its severities stay.
    assert.deepEqual(cli(dir, '--select', 'HR001').found, [
      'legacy/old.py:5 HR001 error',
      'nested/deep.py:6 HR001 warning',
      'train.py:5 HR001 error',
      'warn.py:6 HR001 warning',
    ]);
    writeFileSync(join(dir, 'ci.toml'), '[tool.headroom.lint]\nexclude = ["*.py", "nested"]\nignore = ["HR004"]\n');
    assert.deepEqual(cli(dir, '--config', 'ci.toml').found, ['legacy/old.py:5 HR001 error']);
    writeFileSync(join(dir, 'pyproject.toml'), '[tool.headroom.lint]\nseverity = { HR001 = "loud" }\n');
    const bad = cli(dir);
    assert.equal(bad.code, 2);
    assert.deepEqual(bad.found, []);
    assert.equal(bad.err, `headroom: ${join(dir, 'pyproject.toml')}:2: severity of HR001 is not one of error, warning, info, off\n`);
  });

  it('a path whose every file is excluded is said, and is not a failure', () => {
    const dir = project('[tool.headroom.lint]\nexclude = ["legacy"]\n');
    const r = spawnSync(process.execPath, [CLI, 'lint', 'legacy'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `headroom lint: every Python file in legacy is excluded by ${join(dir, 'pyproject.toml')}\n`);
    const help = spawnSync(process.execPath, [CLI, 'lint', '--help'], { encoding: 'utf8' });
    assert.match(help.stdout, /\[tool\.headroom\.lint\]/);
    assert.match(help.stdout, /--config FILE/);
  });
});
