import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../extension/src/cli/main';
import { renderReport } from '../../extension/src/cli/render';
import { formatBytes } from '../../extension/src/shared/format';
import type { AnalyzeReport } from '../../extension/src/core/report';
import { markdownText, messageText } from '../../extension/src/core/text';
import { plain, plainLines } from '../../extension/src/shared/text';
import { fixture } from './helpers';

/** Any character a terminal or a bidi renderer acts on; only LF may appear, and only between lines. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const dir = mkdtempSync(join(tmpdir(), 'headroom-escape-'));
const SNAP = join(dir, 'hostile.pickle');
// The generator prints the strings it wrote: the test compares against those, not against escape().
const HOSTILE = JSON.parse(
  execFileSync(
    'python3',
    [join(__dirname, '..', 'fixtures', 'hostile', 'make_snapshot.py'), SNAP, 'http://127.0.0.1:9/pixel.png', '/cluster/jobs/7', '24'],
    { encoding: 'utf8' },
  ),
) as Record<string, string>;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** markdown-it (a CommonMark implementation independent of ours), with HTML and linkify on: the strictest reading. */
const MarkdownIt = createRequire(__filename)('markdown-it') as new (o: object) => { render(s: string): string };
const md = new MarkdownIt({ html: true, linkify: true });
const decode = (html: string): string =>
  html
    .replace(/<\/?p>\n?/g, '')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('plain text from data', () => {
  it('writes controls, C1 and bidi characters as visible escapes, and leaves other text alone', () => {
    assert.equal(plain('a\x1b]0;t\x07b'), 'a\\x1b]0;t\\x07b');
    assert.equal(plain('x\r\nnote: y'), 'x\\r\\nnote: y');
    assert.equal(plain('\t\x00\x7f\x9b'), '\\t\\x00\\x7f\\x9b');
    assert.equal(plain('abc\u202egnp.exe\u2066'), 'abc\\u202egnp.exe\\u2066');
    const ordinary = 'train.py:38 (evaluate) ▲ 1.24 GiB µs … «ü» 日本 [x](y) $(warning)';
    assert.equal(plain(ordinary), ordinary);
    assert.equal(plainLines('one\x1b[2J\ntwo\r'), 'one\\x1b[2J\ntwo\\r');
  });

  it('markdown made by markdownText renders as exactly the text: no link, image, tag or emphasis', () => {
    for (const [what, s] of Object.entries(HOSTILE)) {
      const html = md.render(markdownText(s));
      assert.doesNotMatch(html, /<(?!\/?p>)/, `${what}: ${html}`);
      assert.doesNotMatch(decode(html), RAW, what);
      // Strings without control characters come back character for character.
      if (!RAW.test(s) && !s.includes('\n')) assert.equal(decode(html).trim(), s, what);
    }
  });

  it('a notification cannot form a [label](target) link', () => {
    assert.doesNotMatch(messageText(HOSTILE.link!), /\]\s*\(/);
    assert.doesNotMatch(messageText(HOSTILE.command!), /\]\s*\(/);
  });
});

describe('the CLI on a crafted snapshot', () => {
  it('analyze shows every name, escaped, with no raw control character and no forged line', async () => {
    const r = await cli('analyze', SNAP);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, RAW);
    assert.ok(!r.out.split('\n').some((l) => l.startsWith('note: forged')), r.out);
    assert.ok(r.out.includes('\\x1b]0;pwned\\x07\\x1b[2J'), r.out);
    assert.ok(r.out.includes('x\\r\\nnote: forged line'), r.out);
  });

  it('--json is unchanged: the names come back exactly as written', async () => {
    const r = await cli('analyze', SNAP, '--json', '--top', '0');
    const names = (JSON.parse(r.out) as AnalyzeReport).lines.map((l) => `${l.file} ${l.function}`).join('\n');
    assert.ok(names.includes(`${HOSTILE.image} ${HOSTILE.crlf} ${HOSTILE.command}`), names);
    assert.ok(names.includes(`${HOSTILE.link}${HOSTILE.escapes}.py`), names);
  });

  it('check and diff print no raw control character', async () => {
    const log = join(dir, 'train.log');
    writeFileSync(
      log,
      `\x1b]0;title\x07epoch 3\r\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.60 GiB memory in use. Of the allocated memory 70.00 GiB is allocated by PyTorch, and 6.00 GiB is reserved by PyTorch but unallocated.\x1b[2J\n`,
    );
    for (const argv of [
      ['check', SNAP, '--max-peak', '1MiB'],
      ['check', SNAP, '--no-leak'],
      ['check', log, '--explain-oom'],
      ['diff', SNAP, SNAP, '--top', '0'],
    ]) {
      const r = await cli(...argv);
      assert.ok(r.code === 0 || r.code === 1, `${argv.join(' ')}: ${r.code} ${r.err}`);
      assert.doesNotMatch(r.out + r.err, RAW, argv.join(' '));
    }
  });

  it('an error message quoting a hostile path is one escaped line', async () => {
    const r = await cli('analyze', join(dir, 'missing\x1b[2J\nnote: forged.pickle'));
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.err, RAW);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  });
});

describe('figures out of range', () => {
  it('formatBytes never prints NaN or a billion TiB', () => {
    assert.equal(formatBytes(2 ** 50), '1.00 PiB');
    assert.equal(formatBytes(3 * 2 ** 60), '3.00 EiB');
    for (const n of [NaN, Infinity, -Infinity, 2 ** 70, 1e30, -1e30]) {
      const s = formatBytes(n);
      assert.doesNotMatch(s, /NaN|Infinity|e\+|\d{5}/, `${n} → ${s}`);
    }
  });

  it('a report with an absurd time and sizes renders (no "Invalid time value")', async () => {
    const r = await cli('analyze', fixture('e2e_train_b64').path, '--json');
    const report = JSON.parse(r.out) as AnalyzeReport;
    report.peak.time_us = 1e30;
    report.peak.requested_bytes = 1e30;
    report.end.requested_bytes = NaN;
    const text = renderReport(report, 'x.pickle');
    assert.doesNotMatch(text, /NaN|Invalid|\d{7} [KMGTPE]iB/);
    assert.match(text, /Peak +>16 EiB requested/);
  });
});
