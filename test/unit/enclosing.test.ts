// The def/class enclosing a line, read from indentation (core/source/enclosing.ts), against
// Python's own ast (test/reference/enclosing_ref.py) on real code it was not written against:
// the standard library of the python3 on this machine, and the lint corpus's files from public repositories.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { enclosing } from '../../extension/src/core/source/enclosing';
import { ROOT } from './helpers';

function pyFiles(dir: string, out: string[], max: number): void {
  for (const name of readdirSync(dir).sort()) {
    if (out.length >= max) return;
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory() && !/^(test|tests|idlelib|__pycache__|site-packages|lib2to3)$/.test(name)) pyFiles(p, out, max);
    else if (st.isFile() && name.endsWith('.py')) out.push(p);
  }
}

const reference = (files: string[]): Record<string, Record<string, string>> =>
  JSON.parse(
    execFileSync('python3', [join(ROOT, 'test', 'reference', 'enclosing_ref.py')], {
      input: files.join('\n'),
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    }),
  );

function compare(files: string[]): { lines: number; wrong: string[] } {
  const ref = reference(files);
  let lines = 0;
  const wrong: string[] = [];
  for (const [file, want] of Object.entries(ref)) {
    const got = enclosing(readFileSync(file, 'utf8'));
    for (const [ln, q] of Object.entries(want)) {
      lines++;
      if (got.at(Number(ln)) !== q) wrong.push(`${file}:${ln} ${String(got.at(Number(ln)))} ≠ ${q}`);
    }
  }
  return { lines, wrong };
}

describe('enclosing def/class', () => {
  it('agrees with ast on the standard library', () => {
    const stdlib = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
    const files: string[] = [];
    pyFiles(stdlib, files, 600);
    const { lines, wrong } = compare(files);
    console.log(`stdlib: ${files.length} files, ${lines} lines, ${wrong.length} disagree`);
    assert.ok(lines > 50_000, `only ${lines} lines compared`);
    assert.ok(wrong.length <= lines * 0.0005, wrong.slice(0, 20).join('\n'));
  });

  it('agrees with ast on the lint corpus (public repositories’ training code)', () => {
    const files: string[] = [];
    pyFiles(join(ROOT, 'test', 'fixtures', 'lintcorpus'), files, 1000);
    const { lines, wrong } = compare(files);
    console.log(`lint corpus: ${files.length} files, ${lines} lines, ${wrong.length} disagree`);
    assert.ok(lines > 2000);
    assert.deepEqual(wrong, []);
  });

  it('skips strings, brackets, comments, continuations and CRLF', () => {
    const src = [
      'class A:',
      '    x = """',
      'def not_a_def():',
      '"""',
      '    def f(self,',
      '          a=(1,',
      '2)):',
      '        y = [',
      'class NotAClass',
      '        ]',
      '        z = 1 + \\',
      '2',
      '        return a  # def g():',
      '    def g(self): pass',
      'def h():',
      '    s = "unterminated',
      '    return 1',
    ].join('\r\n');
    const e = enclosing(src);
    const got = Array.from({ length: 17 }, (_, i) => e.at(i + 1) ?? '-');
    assert.deepEqual(got, ['A', 'A', 'A', 'A', 'A.f', 'A.f', 'A.f', 'A.f', 'A.f', 'A.f', 'A.f', 'A.f', 'A.f', 'A.g', 'h', 'h', 'h']);
  });
});
