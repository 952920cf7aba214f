// Issue 39, the OOM doctor's cost bounded by its input on every surface: the MCP tool diagnoses a
// snapshot's OOMs within the same work budget as `headroom check --explain-oom` and says how many it
// left out; the text doctor counts a log's lines once, however many OOM messages the log repeats.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { explainOomText, MAX_EXPLAINED, omittedNote } from '../../extension/src/core/diagnose/explainText';
import { families } from '../cost/analyses.family';
import { ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');
const SNAPS = join(ROOT, 'test', 'fixtures', 'snapshots');

const MESSAGE =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 200.00 MiB. GPU 0 has a total capacity of 79.18 GiB of which 77.16 GiB is free. Including non-PyTorch memory, this process has 2.01 GiB memory in use. Of the allocated memory 750.00 MiB is allocated by PyTorch, and 786.00 MiB is reserved by PyTorch but unallocated.';

describe('the MCP OOM doctor within the work budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-budget-'));
  const client = new Client({ name: 'headroom-test', version: '0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [ROOT, tmpdir()].map((d) => ({ uri: pathToFileURL(d).href })),
  }));
  before(async () => {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], stderr: 'pipe' }));
  });
  after(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ask = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'headroom_explain_oom', arguments: args })) as { content: { text: string }[] };
    return r.content[0]!.text;
  };

  it('3,000 OOMs: the first diagnosed while the walks fit, the rest counted in one sentence, as the CLI counts them', async () => {
    // 3,000 OOMs over a trace of 6,001 events and 3,000 tensors: 9,001 walked per diagnosis, so the
    // budget (20 million) keeps 2,221 and leaves 779 out.
    const snap = families.find((f) => f.name === 'doctor-many-ooms')!.make(dir, 3000).argv[1]!;
    const cli = JSON.parse(
      execFileSync(process.execPath, [CLI, 'check', snap, '--explain-oom', '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }),
    ) as {
      ooms: unknown[];
      more?: number;
    };
    assert.ok(cli.more && cli.more > 0, 'the generator makes more OOMs than the budget diagnoses');
    const text = await ask({ path: snap });
    const lines = text.split('\n');
    // Said first: the answer's pages stop at a bound, so a note at the end could be cut off.
    assert.equal(
      lines[0],
      `${cli.more} more OOMs not diagnosed: the first ${cli.ooms.length} took the doctor's budget (each reads the whole trace).`,
    );
    assert.equal(cli.ooms.length + cli.more, 3000);
    assert.match(lines[1]!, /^device 0, event #\d+:$/);
  });

  it('a snapshot with one OOM: diagnosed, and no note', async () => {
    const text = await ask({ path: join(SNAPS, 'frag_oom.pickle') });
    assert.match(text, /^device \d+, event #\d+:/);
    assert.doesNotMatch(text, /not diagnosed/);
  });
});

describe('the text doctor counts lines once', () => {
  /** What the line of each message is, counted the plain way. */
  const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

  it('the line of each message, in a text with breaks anywhere, is the count of breaks before it plus one', () => {
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
    const parts: string[] = [];
    for (let i = 0; i < 60; i++) {
      const pad = Array.from({ length: Math.floor(rnd() * 5) }, () => (rnd() < 0.5 ? 'step\n' : 'x'.repeat(Math.floor(rnd() * 50)))).join(
        '',
      );
      parts.push(pad, rnd() < 0.3 ? `${MESSAGE} ` : `${MESSAGE}\n`);
    }
    const text = parts.join('');
    const { found } = explainOomText(text);
    assert.equal(found.length, 60);
    for (const f of found) assert.equal(f.line, lineAt(text, f.message.offset));
  });

  it('a 16 MB log in one line with 1,200 messages: the line breaks are searched once, not once per message', () => {
    const head = Array.from({ length: 1200 }, (_, i) => `step ${i} ${MESSAGE} `).join('');
    const text = head + 'x'.repeat(16 * 2 ** 20 - head.length);
    // Characters read by every search for a line break in this text: the parser's and the counter's.
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    String.prototype.indexOf = function (this: string, s: string, from?: number) {
      const k = indexOf.call(this, s, from);
      if (s === '\n' && this.length === text.length) scanned += (k < 0 ? this.length : k) - (from ?? 0);
      return k;
    };
    let explained: ReturnType<typeof explainOomText>;
    try {
      explained = explainOomText(text);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.equal(explained.found.length, MAX_EXPLAINED);
    assert.equal(explained.omitted, 200);
    assert.ok(
      explained.found.every((f) => f.line === 1),
      'every message on line 1',
    );
    // Linear: a few passes over the text at most (each message searching to the end read 16 GB).
    assert.ok(scanned <= 3 * text.length, `${scanned} characters searched for 16 MB`);
  });

  it('headroom check - --explain-oom on that log: every message read on line 1, the rest counted', () => {
    const head = Array.from({ length: 1200 }, (_, i) => `step ${i} ${MESSAGE} `).join('');
    const text = head + 'x'.repeat(16 * 2 ** 20 - head.length);
    const r = spawnSync(process.execPath, [CLI, 'check', '-', '--explain-oom'], { input: text, encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /message 1 of 1000, line 1 of standard input/);
    assert.match(r.stdout, /message 1000 of 1000, line 1 of standard input/);
    assert.ok(r.stdout.trimEnd().endsWith(omittedNote(200)), r.stdout.slice(-300));
  });
});
