// `headroom mcp` runs each tool call in a worker of its own: a call that exhausts its heap or
// passes its deadline is stopped and answered with a tool error saying so, while the server goes
// on answering (a ping within a second), and the next call works. Real server, real SDK client,
// snapshots made by Python's pickle to be too big for the limits set here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');
const SNAPS = join(ROOT, 'test', 'fixtures', 'snapshots');
const DIR = mkdtempSync(join(tmpdir(), 'hr-mcp-iso-'));

/** A snapshot of `n` allocations: `wide` gives each its own 200-character file name (heap), else few lines (time). */
function bigSnapshot(name: string, n: number, wide: boolean): string {
  const path = join(DIR, name);
  execFileSync('python3', [
    '-c',
    `import pickle, sys
n, wide = ${n}, ${wide ? 'True' : 'False'}
fr = lambda i: [{"filename": ("/w/%06d/%s.py" % (i, "m" * 200)) if wide else "/w/train.py", "line": 1 + i % 39, "name": "f"}]
trace = [{"action": "alloc", "addr": 0x100000000 + i * 4096, "size": 4096, "stream": 0, "time_us": i, "frames": fr(i)} for i in range(n)]
with open(sys.argv[1], "wb") as out:
    pickle.dump({"segments": [], "device_traces": [trace]}, out, protocol=4)`,
    path,
  ]);
  return path;
}

async function server(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'headroom-test', version: '0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [ROOT, DIR].map((d) => ({ uri: pathToFileURL(d).href })) }));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { ...process.env, ...env } as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  return client;
}

type Answer = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as Answer;
  return { text: r.content[0]!.text, error: r.isError === true };
};

/** Pings every 100 ms until `done` settles: the slowest answer, in ms. */
async function pingsWhile(c: Client, done: Promise<unknown>): Promise<{ slowest: number; count: number }> {
  let settled = false;
  void done.finally(() => (settled = true));
  let slowest = 0;
  let count = 0;
  while (!settled) {
    const t0 = performance.now();
    await c.ping({ timeout: 5000 });
    slowest = Math.max(slowest, performance.now() - t0);
    count++;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { slowest, count };
}

describe('headroom mcp: each call in a worker with a heap limit and a deadline', () => {
  const clients: Client[] = [];
  let wide = '';
  let long = '';
  // The deadline is half what the long snapshot's summary takes on this machine (measured here, on
  // a server without one): it passes the deadline by design, not by being slow code.
  let deadline = 0;
  before(async () => {
    wide = bigSnapshot('wide.pickle', 100_000, true);
    long = bigSnapshot('long.pickle', 200_000, false);
    const c = await server({});
    clients.push(c);
    const t0 = performance.now();
    const r = await call(c, 'headroom_summary', { path: long });
    assert.equal(r.error, false, r.text);
    deadline = Math.max(500, Math.round((performance.now() - t0) / 2));
  });
  after(async () => {
    for (const c of clients) await c.close();
  });

  it('a call that runs out of heap is stopped and says so; pings are answered meanwhile; the next call works', async () => {
    const c = await server({ HEADROOM_MCP_HEAP_MB: '64' });
    clients.push(c);
    const crashed = call(c, 'headroom_summary', { path: wide });
    const pings = await pingsWhile(c, crashed);
    const r = await crashed;
    assert.equal(r.error, true, r.text);
    assert.equal(r.text, 'the analysis ran out of memory (64 MiB) and was stopped');
    assert.ok(pings.count >= 1 && pings.slowest < 1000, `pings: ${JSON.stringify(pings)}`);
    const ok = await call(c, 'headroom_leaks', { path: join(SNAPS, 'leaky_demo.pickle') });
    assert.equal(ok.error, false, ok.text);
    assert.match(ok.text, /leaking/);
  });

  it('a call past its deadline is stopped and says so; pings are answered meanwhile; the next call works', async () => {
    const c = await server({ HEADROOM_MCP_DEADLINE_MS: String(deadline) });
    clients.push(c);
    const t0 = performance.now();
    const late = call(c, 'headroom_summary', { path: long });
    const pings = await pingsWhile(c, late);
    const r = await late;
    assert.equal(r.error, true, r.text);
    assert.match(r.text, /^the analysis took longer than [\d.]+ m?s and was stopped$/);
    assert.ok(performance.now() - t0 < deadline + 4000, 'stopped at its deadline');
    assert.ok(pings.count >= 1 && pings.slowest < 1000, `pings: ${JSON.stringify(pings)}`);
    const ok = await call(c, 'headroom_summary', { path: join(SNAPS, 'e2e_train_b64.pickle') });
    assert.equal(ok.error, false, ok.text);
    assert.match(ok.text, /^.*e2e_train_b64\.pickle, device 0/);
  });

  it('two calls at once run side by side: a slow one does not hold up a quick one', async () => {
    const c = await server({ HEADROOM_MCP_DEADLINE_MS: String(deadline) });
    clients.push(c);
    const slow = call(c, 'headroom_summary', { path: long });
    const quick = await call(c, 'headroom_leaks', { path: join(SNAPS, 'leaky_demo.pickle') });
    assert.equal(quick.error, false, quick.text);
    assert.equal((await slow).error, true);
  });
});
