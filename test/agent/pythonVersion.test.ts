// The agent's oldest Python. Every .py file under extension/agent/ (the sitecustomize shim,
// headroom_agent, torch_headroom) is read by the machine's python3: it must parse with that version's
// grammar (ast.parse's feature_version, plus what feature_version does not check), use nothing the
// standard library added after it (ADDITIONS: the additions that matter to an agent of threads,
// files, sockets and processes), and every place that states the minimum must state the same one:
// the wheel's Requires-Python, the agent's README (the wheel's description), docs/agent.md, the
// README's install section and headroom_agent's docstring. The agent has no version check of its
// own; one, if added (`sys.version_info < (3, N)`), must compare with the same minimum.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { buildWheel } from '../../scripts/wheel.mjs';
import { DEBIAN_PY } from './pythons';

/** The oldest Python the agent supports: change it here and in every statement `statements` lists. */
const MIN: readonly [number, number] = [3, 9];
const MIN_TEXT = `${MIN[0]}.${MIN[1]}`;

const ROOT = join(__dirname, '..', '..');
const AGENT = join(ROOT, 'extension', 'agent');

/**
 * What a scan reports per file, as names:
 *  - dotted names of modules and their attributes, through the file's imports (`_os.environ` is
 *    `os.environ`; `from functools import cache` is `functools.cache`);
 *  - `.NAME` for every attribute read on anything (`"x".removeprefix`);
 *  - `builtin:NAME` for a builtin read by name; `kw:FUNC(ARG)` for a keyword argument of a call;
 *  - `syntax:…` for grammar that feature_version does not reject: `X | Y` in an annotation Python
 *    evaluates (3.10) or in isinstance/issubclass (3.10), a builtin subscripted as a type (3.9), an
 *    f-string holding its own quote (3.12; seen only when python3 is 3.12 or later).
 * `getattr(mod, "name", default)` and `hasattr(mod, "name")` are feature checks: listed as guarded.
 */
const SCAN = String.raw`
import ast, builtins, io, json, sys, tokenize

MIN = (int(sys.argv[1]), int(sys.argv[2]))
TYPES = {"list", "dict", "tuple", "set", "frozenset", "type"}

def chain(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return list(reversed(parts))

def evaluated_annotations(tree):
    out = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = n.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    out.append(arg.annotation)
            if n.returns is not None:
                out.append(n.returns)
    # Variable annotations are evaluated at module and class level only.
    bodies = [tree.body] + [c.body for c in ast.walk(tree) if isinstance(c, ast.ClassDef)]
    for body in bodies:
        out.extend(s.annotation for s in body if isinstance(s, ast.AnnAssign))
    return out

def fstring_quotes(src):
    if sys.version_info < (3, 12):
        return False  # such f-strings do not even parse here
    lines = src.splitlines(keepends=True)
    def text(a, b):
        if a[0] == b[0]:
            return lines[a[0] - 1][a[1]:b[1]]
        return lines[a[0] - 1][a[1]:] + "".join(lines[a[0]:b[0] - 1]) + lines[b[0] - 1][:b[1]]
    depth, start = 0, None
    for t in tokenize.generate_tokens(io.StringIO(src).readline):
        if t.type == tokenize.FSTRING_START:
            if depth == 0:
                start = t
            depth += 1
        elif t.type == tokenize.FSTRING_END:
            depth -= 1
            if depth == 0:
                quote = start.string.lstrip("fFrRbBuU")
                body = text(start.end, t.start).replace("\\" + quote[0], "")
                if quote in body:
                    return True
    return False

def scan(path):
    src = open(path, encoding="utf-8").read()
    found = {"file": path, "syntax": None, "uses": set(), "guarded": set(), "guards": []}
    try:
        tree = ast.parse(src, path, feature_version=MIN)
    except SyntaxError as e:
        found["syntax"] = "line %s: %s" % (e.lineno, e.msg)
        tree = ast.parse(src, path)
    uses = found["uses"]
    names = {}
    future = False
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                uses.add(a.name)
                if a.asname:
                    names[a.asname] = a.name
                else:
                    names[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            if n.module == "__future__" and any(a.name == "annotations" for a in n.names):
                future = True
            uses.add(n.module)
            for a in n.names:
                uses.add(n.module + "." + a.name)
                names[a.asname or a.name] = n.module + "." + a.name
    def resolve(node):
        c = chain(node)
        if c and c[0] in names:
            return ".".join([names[c[0]]] + c[1:])
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            uses.add("." + n.attr)
            r = resolve(n)
            if r:
                uses.add(r)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id in names:
                uses.add(names[n.id])
            elif hasattr(builtins, n.id):
                uses.add("builtin:" + n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in TYPES:
            uses.add("syntax:builtin-generic")
        elif isinstance(n, ast.Compare) and chain(n.left) == ["sys", "version_info"]:
            for op, right in zip(n.ops, n.comparators):
                if isinstance(op, ast.Lt) and isinstance(right, ast.Tuple):
                    found["guards"].append([c.value for c in right.elts if isinstance(c, ast.Constant)])
        if isinstance(n, ast.Call):
            c = chain(n.func)
            fname = c[-1] if c else None
            for k in n.keywords:
                if fname and k.arg:
                    uses.add("kw:%s(%s)" % (fname, k.arg))
            if fname in ("getattr", "hasattr") and len(n.args) >= 2:
                mod = resolve(n.args[0])
                key = n.args[1]
                if mod and isinstance(key, ast.Constant) and isinstance(key.value, str):
                    whole = mod + "." + key.value
                    if fname == "hasattr" or len(n.args) == 3:
                        found["guarded"].add(whole)
                    else:
                        uses.add(whole)
            if fname in ("isinstance", "issubclass") and len(n.args) == 2:
                if isinstance(n.args[1], ast.BinOp) and isinstance(n.args[1].op, ast.BitOr):
                    uses.add("syntax:isinstance-union")
    if not future:
        for a in evaluated_annotations(tree):
            if any(isinstance(x, ast.BinOp) and isinstance(x.op, ast.BitOr) for x in ast.walk(a)):
                uses.add("syntax:annotation-union")
    if fstring_quotes(src):
        uses.add("syntax:fstring-quotes")
    found["uses"] = sorted(uses)
    found["guarded"] = sorted(found["guarded"])
    return found

print(json.dumps([scan(p) for p in sys.argv[3:]]))
`;

interface Scan {
  file: string;
  syntax: string | null;
  uses: string[];
  guarded: string[];
  guards: number[][];
}

/** Standard-library additions by version, as the scan names them (a dotted name matches its attributes too). */
const ADDITIONS: Record<string, string[]> = {
  '3.7': [
    'time.time_ns',
    'time.perf_counter_ns',
    'time.monotonic_ns',
    'os.register_at_fork',
    'contextlib.nullcontext',
    'queue.SimpleQueue',
    'dataclasses',
    'contextvars',
    'importlib.resources',
    'builtin:breakpoint',
  ],
  '3.8': [
    'functools.cached_property',
    'threading.get_native_id',
    'threading.excepthook',
    'sys.unraisablehook',
    'importlib.metadata',
    'shlex.join',
    'math.prod',
    'os.memfd_create',
    'typing.Literal',
    'typing.Protocol',
    'typing.Final',
    'typing.TypedDict',
    'multiprocessing.shared_memory',
  ],
  '3.9': [
    '.removeprefix',
    '.removesuffix',
    '.is_relative_to',
    '.with_stem',
    'functools.cache',
    'zoneinfo',
    'graphlib',
    'os.waitstatus_to_exitcode',
    'os.pidfd_open',
    'signal.pidfd_send_signal',
    'socket.send_fds',
    'socket.recv_fds',
    'sys.platlibdir',
    'random.randbytes',
    'math.lcm',
    'ast.unparse',
    'typing.Annotated',
    'types.GenericAlias',
    'asyncio.to_thread',
    'syntax:builtin-generic',
  ],
  '3.10': [
    'kw:zip(strict)',
    'kw:dataclass(slots)',
    'kw:dataclass(kw_only)',
    'kw:bisect_left(key)',
    'kw:bisect_right(key)',
    'kw:insort(key)',
    '.bit_count',
    'itertools.pairwise',
    'sys.orig_argv',
    'sys.stdlib_module_names',
    'contextlib.aclosing',
    'threading.gettrace',
    'threading.getprofile',
    'os.eventfd',
    'os.splice',
    'builtin:aiter',
    'builtin:anext',
    'builtin:EncodingWarning',
    'typing.ParamSpec',
    'typing.TypeAlias',
    'typing.TypeGuard',
    'typing.Concatenate',
    'syntax:annotation-union',
    'syntax:isinstance-union',
  ],
  '3.11': [
    'tomllib',
    'datetime.UTC',
    'contextlib.chdir',
    'hashlib.file_digest',
    'enum.StrEnum',
    'sys.exception',
    'operator.call',
    'logging.getLevelNamesMapping',
    're.NOFLAG',
    'asyncio.TaskGroup',
    'asyncio.timeout',
    'typing.Self',
    'typing.Never',
    'typing.assert_never',
    '.add_note',
    'builtin:ExceptionGroup',
    'builtin:BaseExceptionGroup',
  ],
  '3.12': [
    'itertools.batched',
    'typing.override',
    'os.path.splitroot',
    'sys.monitoring',
    'sys.activate_stack_trampoline',
    'math.sumprod',
    'kw:rmtree(onexc)',
    'syntax:fstring-quotes',
  ],
  '3.13': ['copy.replace', 'warnings.deprecated', 'os.process_cpu_count', 'queue.ShutDown', 'builtin:PythonFinalizationError'],
};

const version = (v: string): [number, number] => v.split('.').map(Number) as [number, number];
const newer = (v: string) => {
  const [major, minor] = version(v);
  return major > MIN[0] || (major === MIN[0] && minor > MIN[1]);
};
const matches = (use: string, addition: string) => use === addition || (!addition.includes(':') && use.startsWith(`${addition}.`));

/** Each use with the version that added it, for the additions in the table. */
function additionsIn(s: Scan): { use: string; since: string }[] {
  return s.uses.flatMap((use) =>
    Object.entries(ADDITIONS).flatMap(([since, list]) => (list.some((a) => matches(use, a)) ? [{ use, since }] : [])),
  );
}

function scan(files: string[]): Scan[] {
  const out = execFileSync(DEBIAN_PY, ['-c', SCAN, String(MIN[0]), String(MIN[1]), ...files], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out) as Scan[];
}

function agentFiles(): string[] {
  return (readdirSync(AGENT, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.py') && !f.split('/').includes('__pycache__'))
    .sort()
    .map((f) => join(AGENT, f));
}

const tooNew = (scans: Scan[]) =>
  scans.flatMap((s) =>
    additionsIn(s)
      .filter((a) => newer(a.since))
      .map((a) => `${relative(ROOT, s.file)}: ${a.use} (Python ${a.since})`),
  );

describe(`the agent runs on Python ${MIN_TEXT} and later`, () => {
  const files = agentFiles();
  const scans = scan(files);

  it('scans every agent source: the shim, headroom_agent and torch_headroom', () => {
    const rel = files.map((f) => relative(AGENT, f));
    assert.ok(rel.includes('sitecustomize.py'));
    assert.ok(rel.some((f) => f.startsWith('headroom_agent/')));
    assert.ok(rel.some((f) => f.startsWith('torch_headroom/')));
    assert.equal(scans.length, files.length);
  });

  it(`every file parses with Python ${MIN_TEXT}'s grammar`, () => {
    const errors = scans.filter((s) => s.syntax).map((s) => `${relative(ROOT, s.file)}: ${s.syntax}`);
    assert.deepEqual(errors, []);
  });

  it(`uses nothing the standard library added after ${MIN_TEXT}`, (t) => {
    assert.deepEqual(tooNew(scans), []);
    // What the sources need, for the record (the floor by the table; the stated minimum may be higher).
    const all = scans.flatMap((s) => additionsIn(s));
    const newest = all.sort((a, b) => version(b.since)[1] - version(a.since)[1])[0];
    t.diagnostic(newest ? `newest addition used: ${newest.use} (Python ${newest.since})` : 'no addition of the table is used');
    const guarded = [...new Set(scans.flatMap((s) => s.guarded))];
    if (guarded.length) t.diagnostic(`looked up only where present: ${guarded.join(', ')}`);
  });

  it('the check finds what it looks for (a file written to use newer Python)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-pyversion-'));
    const file = join(dir, 'newer.py');
    writeFileSync(
      file,
      [
        'import os as _os',
        'from functools import cache',
        'import tomllib',
        'def f(x: int | None, y) -> None:',
        '    _os.waitstatus_to_exitcode(0)',
        '    isinstance(y, int | str)',
        '    return list(zip([x], [y], strict=True)), "ab".removeprefix("a"), (5).bit_count()',
        '',
      ].join('\n'),
    );
    const match = join(dir, 'match.py');
    writeFileSync(match, 'match 1:\n    case 1:\n        pass\n');
    const [s, m] = scan([file, match]);
    const found = (s?.uses ?? []).flatMap((u) =>
      Object.values(ADDITIONS)
        .flat()
        .filter((a) => matches(u, a)),
    );
    for (const expected of [
      'functools.cache',
      'tomllib',
      'os.waitstatus_to_exitcode',
      '.removeprefix',
      '.bit_count',
      'kw:zip(strict)',
      'syntax:annotation-union',
      'syntax:isinstance-union',
    ])
      assert.ok(found.includes(expected), `the scan missed ${expected}: ${JSON.stringify(s?.uses)}`);
    assert.ok(tooNew([s!]).length >= 5, 'newer additions are reported');
    assert.match(m?.syntax ?? '', /3\.10/, 'feature_version rejects match below 3.10');
  });

  it('any version check of the agent compares with the same minimum', () => {
    const guards = scans.flatMap((s) => s.guards.map((g) => ({ file: relative(ROOT, s.file), g: g.slice(0, 2).join('.') })));
    assert.deepEqual(
      guards.filter((x) => x.g !== MIN_TEXT),
      [],
    );
  });

  it(`every statement of the minimum says ${MIN_TEXT}`, () => {
    const text = (p: string) => readFileSync(join(ROOT, p), 'utf8');
    const readme = text('README.md');
    const install = readme.slice(readme.indexOf('\n## Install\n'), readme.indexOf('\n## ', readme.indexOf('\n## Install\n') + 4));
    const metadata = execFileSync(
      DEBIAN_PY,
      [
        '-c',
        'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.read([n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]).decode())',
        buildWheel(mkdtempSync(join(tmpdir(), 'headroom-pyversion-wheel-'))),
      ],
      { encoding: 'utf8' },
    );
    const statements: [string, string, RegExp][] = [
      ['the wheel METADATA (scripts/wheel.mjs)', metadata, /^Requires-Python: >=(\d+\.\d+)$/m],
      ['extension/agent/README.md', text('extension/agent/README.md'), /needs Python (\d+\.\d+) or later/],
      ['docs/agent.md', text('docs/agent.md'), /needs Python (\d+\.\d+) or later/],
      ["README.md's install section", install, /Python ≥ (\d+\.\d+)/],
      ['headroom_agent/__init__.py', text('extension/agent/headroom_agent/__init__.py'), /Python (\d+\.\d+)\+/],
    ];
    const said = statements.map(([where, body, re]) => `${where}: ${re.exec(body)?.[1] ?? 'no statement'}`);
    assert.deepEqual(
      said,
      statements.map(([where]) => `${where}: ${MIN_TEXT}`),
    );
  });
});
