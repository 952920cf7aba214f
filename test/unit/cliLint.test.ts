// `headroom lint` output formats (text, json, sarif, github), run in-process on real files.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { main } from '../../extension/src/cli/main';
import { formatLintGithub } from '../../extension/src/cli/lintOutput';
import type { Finding } from '../../extension/src/core/lint/types';

/** Runs `headroom ...args` in `cwd` (lint names files relative to it). */
async function headroom(cwd: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const was = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  } finally {
    process.chdir(was);
  }
}

interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: {
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId?: string };
      region: { startLine: number; startColumn: number; endLine: number; endColumn: number };
    };
  }[];
}

// Line 5 (1-based) is `    total += loss`: the finding starts at column 5 and spans 13 characters. Nothing trains:
// the loop at line 3 is evaluation without no_grad (HR004, docs/rules/HR004.md "whatever the names").
const TRAIN = 'import torch\ntotal = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    total += loss\n';
// The same mistake in a loop that calls backward(): a warning, not an error (docs/rules/HR001.md).
const WARN =
  'import torch\nrunning = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    running += loss\n';

describe('headroom lint formats', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'headroom-lintfmt-'));
    mkdirSync(join(dir, 'src dir'));
    writeFileSync(join(dir, 'src dir', 'train#1.py'), TRAIN);
    writeFileSync(join(dir, 'warn.py'), WARN);
    writeFileSync(join(dir, 'README.md'), 'total += loss\n');
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'notes.txt'), 'nothing here\n');
  });

  it('text: file:line:col: severity HRnnn message, 1-based', async () => {
    const r = await headroom(dir, 'lint', '.');
    assert.equal(r.code, 1, r.err);
    const lines = r.out.trim().split('\n').sort();
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^src dir\/train#1\.py:3:1: error HR004 This evaluation loop runs `model/);
    assert.match(lines[1]!, /^src dir\/train#1\.py:5:5: error HR001 `total` accumulates `loss`/);
    assert.match(lines[2]!, /^warn\.py:6:5: warning HR001 `running` accumulates `loss`/);
  });

  it('json (and --json): lines and columns 1-based, end exclusive', async () => {
    const a = await headroom(dir, 'lint', '.', '--json');
    const b = await headroom(dir, 'lint', '.', '--format', 'json');
    assert.equal(a.out, b.out);
    const j = JSON.parse(a.out) as {
      files: number;
      findings: {
        file: string;
        rule: string;
        severity: string;
        start: { line: number; col: number };
        end: { line: number; col: number };
        evidence?: { line: number; loopLine: number };
      }[];
    };
    assert.equal(j.files, 2);
    const f = j.findings.find((x) => x.file.endsWith('train#1.py') && x.rule === 'HR001')!;
    assert.deepEqual(
      [f.start, f.end],
      [
        { line: 5, col: 5 },
        { line: 5, col: 5 + 'total += loss'.length },
      ],
    );
    assert.deepEqual([f.evidence?.line, f.evidence?.loopLine], [5, 3]);
  });

  it('sarif: SARIF 2.1.0 with its required fields, and the same positions as the text output', async () => {
    const text = await headroom(dir, 'lint', '.');
    const r = await headroom(dir, 'lint', '.', '--format', 'sarif');
    assert.equal(r.code, 1);
    const log = JSON.parse(r.out);
    assert.equal(log.version, '2.1.0');
    assert.match(log.$schema, /sarif-2\.1\.0/);
    assert.equal(log.runs.length, 1);
    const run = log.runs[0];
    const driver = run.tool.driver;
    assert.equal(driver.name, 'Headroom');
    assert.ok(new URL(driver.informationUri));
    const hr001 = driver.rules.find((x: { id: string }) => x.id === 'HR001');
    assert.equal(typeof hr001.shortDescription.text, 'string');
    const page = new URL(hr001.helpUri);
    assert.equal(page.protocol, 'file:');
    assert.match(page.pathname, /\/docs\/rules\/HR001\.md$/);
    assert.ok(existsSync(fileURLToPath(page)), 'the rule page exists');
    for (const rule of driver.rules) assert.match(rule.helpUri, new RegExp(`/${rule.id}\\.md$`));
    // Each text line, parsed here, against its SARIF result: uri (relative, percent-encoded), level, 1-based region.
    const want = text.out
      .trim()
      .split('\n')
      .map((l) => {
        const m = /^(.*):(\d+):(\d+): (error|warning|info) (HR\d{3}) (.*)$/.exec(l)!;
        return { file: m[1]!, line: Number(m[2]), col: Number(m[3]), level: m[4] === 'info' ? 'note' : m[4], rule: m[5], message: m[6] };
      });
    const got = run.results.map((x: SarifResult) => {
      const loc = x.locations[0]!.physicalLocation;
      assert.equal(loc.artifactLocation.uriBaseId, '%SRCROOT%');
      assert.ok(loc.region.endLine >= loc.region.startLine && loc.region.endColumn > 0);
      return {
        file: decodeURIComponent(loc.artifactLocation.uri),
        line: loc.region.startLine,
        col: loc.region.startColumn,
        level: x.level,
        rule: x.ruleId,
        message: x.message.text,
      };
    });
    assert.deepEqual(got, want);
    const uris = run.results.map((x: SarifResult) => x.locations[0]!.physicalLocation.artifactLocation.uri);
    assert.ok(uris.includes('src%20dir/train%231.py'), uris.join(' '));
    assert.equal(realpathSync(fileURLToPath(run.originalUriBaseIds['%SRCROOT%'].uri)), realpathSync(dir));
  });

  it('github: one workflow command per finding, positions 1-based', async () => {
    const r = await headroom(dir, 'lint', '.', '--format', 'github');
    assert.equal(r.code, 1);
    const lines = r.out.trim().split('\n').sort();
    assert.match(lines[0]!, /^::error file=src dir\/train#1\.py,line=3,col=1,endLine=3,endColumn=4,title=HR004::This evaluation loop/);
    assert.match(lines[1]!, /^::error file=src dir\/train#1\.py,line=5,col=5,endLine=5,endColumn=18,title=HR001::`total` accumulates/);
    assert.match(lines[2]!, /^::warning file=warn\.py,line=6,col=5,endLine=6,endColumn=20,title=HR001::`running` accumulates/);
  });

  it('github: %, CR and LF escaped in the message; also , and : in properties; other controls made visible', () => {
    const f: Finding = {
      rule: 'HR005',
      severity: 'info',
      message: '50% of\r\nmemory, lost: yes\x1b[31m',
      start: { line: 0, col: 0 },
      end: { line: 2, col: 1 },
      startIndex: 0,
      endIndex: 1,
      fixes: [],
    };
    const out = formatLintGithub([{ file: 'a,b:c%d\n.py', findings: [f], broken: false }]);
    // A finding across lines carries no columns (GitHub only takes a column range on one line).
    assert.equal(out, '::notice file=a%2Cb%3Ac%25d%0A.py,line=1,endLine=3,title=HR005::50%25 of%0D%0Amemory, lost: yes\\x1b[31m\n');
  });

  it('says when a path holds no Python file: exit 2, one line on stderr each', async () => {
    const none = await headroom(dir, 'lint', 'README.md');
    assert.deepEqual([none.code, none.out, none.err], [2, '', 'headroom lint: no Python file (.py) in README.md\n']);
    const folder = await headroom(dir, 'lint', 'docs', 'README.md');
    assert.equal(folder.code, 2);
    assert.equal(folder.err, 'headroom lint: no Python file (.py) in docs\nheadroom lint: no Python file (.py) in README.md\n');
    // Beside a path that has some, the empty one is still named, and the findings decide the code.
    const mixed = await headroom(dir, 'lint', 'warn.py', 'README.md');
    assert.equal(mixed.code, 0);
    assert.equal(mixed.err, 'headroom lint: no Python file (.py) in README.md\n');
    assert.match(mixed.out, /^warn\.py:6:5: warning HR001/);
  });

  it('says a file it cannot lint (nested beyond the stack), lints the rest, and exits 2', async () => {
    const deep = mkdtempSync(join(tmpdir(), 'headroom-lintdeep-'));
    // Far deeper than CPython accepts (200 brackets), as hostile input may be.
    writeFileSync(
      join(deep, 'deep.py'),
      `import torch\nfor b in loader:\n    x = ${'['.repeat(20000)}model(b)${']'.repeat(20000)}\n    total += x\n`,
    );
    writeFileSync(join(deep, 'train.py'), TRAIN);
    const r = await headroom(deep, 'lint', '.');
    assert.equal(r.code, 2);
    assert.match(r.err, /^headroom lint: .*deep\.py: not linted \(nested too deeply\)$/m);
    assert.match(r.out, /train\.py:5:5: error HR001/);
  });

  it('refuses an unknown --format, and --json with another format', async () => {
    const bad = await headroom(dir, 'lint', '.', '--format', 'xml');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--format is text, json, sarif, github; got "xml"/);
    assert.equal((await headroom(dir, 'lint', '.', '--json', '--format', 'sarif')).code, 2);
  });
});
