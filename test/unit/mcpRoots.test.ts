// What `headroom mcp`'s tools may read: files under the client's roots (roots/list, asked again
// after notifications/roots/list_changed), or under the server's working directory when the client
// declares no roots; links are followed before the check. And every answer is plain text: control
// and bidi characters from file names come back escaped, whichever tool wrote them.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');
const SNAPS = join(ROOT, 'test', 'fixtures', 'snapshots');
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

type Answer = { content: { type: string; text: string }[]; isError?: boolean };
const clients: Client[] = [];
after(async () => {
  for (const c of clients) await c.close();
});

async function connect(cwd: string, roots?: () => string[]): Promise<Client> {
  const client = new Client({ name: 'headroom-test', version: '0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots().map((d) => ({ uri: pathToFileURL(d).href })) }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd, stderr: 'pipe' }));
  clients.push(client);
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name, arguments: args })) as Answer;
  return { text: r.content[0]!.text, error: r.isError === true };
};

describe('headroom mcp: the files the tools may read', () => {
  const work = mkdtempSync(join(tmpdir(), 'hr-mcp-roots-'));
  const inside = join(work, 'project');
  const outside = join(work, 'elsewhere');
  mkdirSync(inside);
  mkdirSync(outside);
  copyFileSync(join(SNAPS, 'leaky_demo.pickle'), join(inside, 'run.pickle'));
  copyFileSync(join(SNAPS, 'leaky_demo.pickle'), join(outside, 'secret.pickle'));
  symlinkSync(join(outside, 'secret.pickle'), join(inside, 'link.pickle'));
  // A run folder inside whose snapshot is a link out of the roots.
  mkdirSync(join(inside, 'linked-run'));
  symlinkSync(join(outside, 'secret.pickle'), join(inside, 'linked-run', 'snapshot-peak.pickle'));

  it('a client without the roots capability: the working directory is the one root, and the refusal says so', async () => {
    const c = await connect(inside);
    assert.equal((await call(c, 'headroom_leaks', { path: 'run.pickle' })).error, false);
    assert.equal((await call(c, 'headroom_leaks', { path: join(inside, 'run.pickle') })).error, false);
    for (const path of [join(outside, 'secret.pickle'), join(inside, 'link.pickle'), '../elsewhere/secret.pickle']) {
      const r = await call(c, 'headroom_summary', { path });
      assert.equal(r.error, true, path);
      assert.equal(
        r.text,
        `${path} is outside the folders Headroom may read (the server's working directory ${inside}, as the client declared no roots)`,
      );
    }
    // Each path argument is checked: the second of compare, the evidence run of the lint.
    const cmp = await call(c, 'headroom_compare', { before: 'run.pickle', after: join(outside, 'secret.pickle') });
    assert.match(cmp.text, /secret\.pickle is outside the folders/);
    const lint = await call(c, 'headroom_lint', { file: join(ROOT, 'demo', 'workspace', 'train_leaky.py') });
    assert.match(lint.text, /train_leaky\.py is outside the folders/);
  });

  it('a run folder under the root whose snapshot links out of it gives nothing from that snapshot', async () => {
    const c = await connect(inside);
    const r = await call(c, 'headroom_summary', { path: 'linked-run' });
    assert.equal(r.error, true);
    assert.doesNotMatch(r.text, /leaking|peak/);
  });

  it("a client's roots decide, and are asked again when it says they changed", async () => {
    let roots = [inside];
    const c = await connect(ROOT, () => roots);
    assert.equal((await call(c, 'headroom_leaks', { path: join(inside, 'run.pickle') })).error, false);
    const refused = await call(c, 'headroom_leaks', { path: join(outside, 'secret.pickle') });
    assert.equal(
      refused.text,
      `${join(outside, 'secret.pickle')} is outside the folders Headroom may read (the client's roots: ${inside})`,
    );
    // The working directory is no root when the client gives its own.
    assert.equal((await call(c, 'headroom_leaks', { path: join(SNAPS, 'leaky_demo.pickle') })).error, true);
    roots = [inside, outside];
    await c.sendRootsListChanged();
    const now = await call(c, 'headroom_leaks', { path: join(outside, 'secret.pickle') });
    assert.equal(now.error, false, now.text);
    roots = [];
    await c.sendRootsListChanged();
    assert.match((await call(c, 'headroom_leaks', { path: join(inside, 'run.pickle') })).text, /\(the client gave no roots\)$/);
  });
});

describe('headroom mcp: every answer is escaped on its way out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hr-mcp-text-'));
  const hostile = 'a\x1bb\x07c\u202ed';

  it("explain OOM's own answers (no OOM message in a log, no OOM in a snapshot) escape a hostile file name", async () => {
    const log = join(dir, `${hostile}.log`);
    writeFileSync(log, 'all fine\n');
    const snap = join(dir, `${hostile}.pickle`);
    copyFileSync(join(SNAPS, 'leaky_demo.pickle'), snap);
    const c = await connect(dir);
    for (const path of [log, snap]) {
      const r = await call(c, 'headroom_explain_oom', { path });
      assert.equal(r.error, false, r.text);
      assert.match(r.text, /^no (CUDA out-of-memory message|OOM recorded) in /);
      assert.doesNotMatch(r.text, CONTROL);
      assert.ok(r.text.includes('a\\x1bb\\x07c\\u202ed'), r.text);
    }
    // Errors too.
    const missing = await call(c, 'headroom_summary', { path: join(dir, `${hostile}-missing.pickle`) });
    assert.equal(missing.error, true);
    assert.doesNotMatch(missing.text, CONTROL);
  });
});
