import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from './helpers';

// The checks `npm test` runs before the type check, each shown to fail on what it forbids: a copy
// of the sources with one violation planted, run through the same script and the same Biome.
const CONVENTIONS = join(ROOT, 'scripts', 'conventions.mjs');
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

let tmp: string;
const copy = (name: string): string => {
  const dir = join(tmp, name);
  for (const d of ['extension/src', 'webview/src']) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(ROOT, 'scripts', 'sizes.json'), join(dir, 'scripts', 'sizes.json'));
  return dir;
};
const conventions = (dir: string) => spawnSync(process.execPath, [CONVENTIONS, dir], { encoding: 'utf8' });
const prepend = (file: string, line: string) => writeFileSync(file, `${line}\n${readFileSync(file, 'utf8')}`);

describe('conventions: npm test fails on what the style notes forbid', () => {
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'headroom-conventions-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the sources as they are pass', () => {
    const r = conventions(copy('clean'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /no violation/);
  });

  it('vscode imported in the engine fails, and names the file', () => {
    const dir = copy('vscode');
    prepend(join(dir, 'extension/src/core/analysis/replay.ts'), "import * as vscode from 'vscode';");
    const r = conventions(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /extension\/src\/core\/analysis\/replay\.ts: imports vscode outside extension\/src\/host\//);
  });

  it('an import circle fails, with its path', () => {
    const dir = copy('circle');
    // format.ts imports nothing today; make it import a module that (through others) imports it.
    prepend(join(dir, 'extension/src/shared/format.ts'), "import type { Limits } from '../core/limits';");
    prepend(join(dir, 'extension/src/core/limits.ts'), "import { formatBytes } from '../shared/format';");
    const r = conventions(dir);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /import circle: extension\/src\/core\/limits\.ts → extension\/src\/shared\/format\.ts → extension\/src\/core\/limits\.ts/,
    );
  });

  it('the webview reaching into the engine fails; the engine reaching a front end fails', () => {
    const dir = copy('layers');
    prepend(join(dir, 'webview/src/dom.ts'), "import { replay } from '../../extension/src/core/analysis/replay';");
    prepend(join(dir, 'extension/src/core/limits.ts'), "import { main } from '../cli/main';");
    const r = conventions(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /webview\/src\/dom\.ts: the webview imports beyond protocol and shared/);
    assert.match(r.stderr, /extension\/src\/core\/limits\.ts: the engine imports a front end/);
  });

  it('a new file over the size target fails, and so does a listed one that grew', () => {
    const dir = copy('sizes');
    writeFileSync(join(dir, 'extension/src/core/big.ts'), `export const TEXT = '${'x'.repeat(6000)}';\n`);
    const listed = Object.keys(JSON.parse(readFileSync(join(ROOT, 'scripts', 'sizes.json'), 'utf8')))[0]!;
    appendFileSync(join(dir, listed), '// grown\n');
    const r = conventions(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /extension\/src\/core\/big\.ts: \d+ bytes, over the 5120-byte target/);
    assert.ok(r.stderr.includes(`${listed}: `) && /grew past its allowance/.test(r.stderr), r.stderr);
  });

  it('an unformatted file fails Biome with the repository configuration', () => {
    const dir = join(tmp, 'format');
    mkdirSync(join(dir, 'extension/src/core'), { recursive: true });
    cpSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
    const file = join(dir, 'extension/src/core/x.ts');
    writeFileSync(file, 'export const x = 1;\n');
    const ok = spawnSync(process.execPath, [BIOME, 'ci', '--colors=off', '--vcs-enabled=false', '.'], { cwd: dir, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    writeFileSync(file, 'export const x =   { a:1,b:2 }\n');
    const bad = spawnSync(process.execPath, [BIOME, 'ci', '--colors=off', '--vcs-enabled=false', '.'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout + bad.stderr, /x\.ts format/);
  });
});
