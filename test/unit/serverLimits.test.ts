import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { RunServer } from '../../extension/src/core/run/server';
import type { RunServerLimits } from '../../extension/src/core/run/server';

// The run server on a real Unix socket, with peers as an attacker on the same machine would be:
// many idle connections, megabytes before a hello, a hello one byte at a time, huge lines after it.

interface Peer {
  socket: Socket;
  closed: Promise<number>;
}

/** A client connection; `closed` resolves with the milliseconds it stayed open. */
async function peer(address: string): Promise<Peer> {
  const t0 = Date.now();
  const socket = connect(address);
  socket.on('error', () => undefined); // the server may close it mid-write (EPIPE)
  const closed = new Promise<number>((res) => socket.once('close', () => res(Date.now() - t0)));
  await new Promise<void>((res, rej) => {
    socket.once('connect', res);
    socket.once('error', rej);
  });
  return { socket, closed };
}

const hello = (token: string) => `${JSON.stringify({ type: 'hello', token, pid: 4242 })}\n`;
const sample = (t: number) => `${JSON.stringify({ type: 'sample', t, device: 0, allocated: 1, reserved: 2, max_allocated: 1 })}\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether p settles within ms. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => true), sleep(ms).then(() => false)]);

describe('run server limits', () => {
  let server: RunServer | undefined;
  const peers: Socket[] = [];
  afterEach(async () => {
    for (const s of peers.splice(0)) s.destroy();
    await server?.close();
    server = undefined;
  });

  async function start(limits: Partial<RunServerLimits>, log: string[] = [], got: string[] = []): Promise<RunServer> {
    server = await RunServer.listen(
      { refused: (why) => log.push(why), connect: (s) => got.push(`hello ${s.hello.pid}`), message: (_, m) => got.push(m.type) },
      limits,
    );
    return server;
  }

  it('keeps at most maxPending unauthenticated connections, closing the oldest, and a real agent still gets in', async () => {
    const log: string[] = [];
    const got: string[] = [];
    const s = await start({ maxPending: 4, helloMs: 30_000 }, log, got);
    const idle: Peer[] = [];
    for (let i = 0; i < 12; i++) {
      const p = await peer(s.address);
      peers.push(p.socket);
      idle.push(p);
    }
    await sleep(100);
    assert.ok(s.pendingCount <= 4, `pending ${s.pendingCount}`);
    // The first 8 were closed by the server (long before the 30 s hello deadline); the last 4 wait.
    for (const p of idle.slice(0, 8)) assert.ok(await within(p.closed, 2000), 'an old idle connection was closed');
    for (const p of idle.slice(8)) assert.equal(await within(p.closed, 50), false, 'the newest idle connections are still open');
    const agent = await peer(s.address);
    peers.push(agent.socket);
    agent.socket.write(hello(s.token) + sample(1));
    await sleep(200);
    assert.deepEqual(got, ['hello 4242', 'sample']);
    assert.equal(s.connected.length, 1);
    assert.equal(log.filter((w) => /waiting for a hello/.test(w)).length, 1, 'the flood is logged once, not per connection');
  });

  it('closes a connection that sends more than maxHelloBytes before a hello, without a newline or with one', async () => {
    const log: string[] = [];
    const s = await start({ maxHelloBytes: 64 << 10 }, log);
    const noNewline = await peer(s.address);
    const longLine = await peer(s.address);
    peers.push(noNewline.socket, longLine.socket);
    // Up to 1 MiB each, written in pieces: the server must cut them off long before the end.
    const piece = 'x'.repeat(16 << 10);
    for (let i = 0; i < 64 && !noNewline.socket.destroyed; i++) noNewline.socket.write(piece);
    longLine.socket.write(`{"type":"hello","token":"${'y'.repeat(100 << 10)}","pid":1}\n`);
    assert.ok(await within(noNewline.closed, 2000), 'a megabyte without a newline: closed');
    assert.ok(await within(longLine.closed, 2000), 'a 100 KiB hello: closed');
    assert.equal(log.filter((w) => w === 'hello too long').length, 2, log.join('; '));
    assert.equal(s.pendingCount, 0);
  });

  it('drops a slow talker that has not finished its hello by the deadline', async () => {
    const log: string[] = [];
    const s = await start({ helloMs: 300 }, log);
    const slow = await peer(s.address);
    peers.push(slow.socket);
    const text = hello(s.token);
    let i = 0;
    const drip = setInterval(() => {
      if (!slow.socket.destroyed && i < text.length - 1) slow.socket.write(text[i++]!); // never the newline
    }, 20);
    try {
      const ms = await Promise.race([slow.closed, sleep(3000).then(() => -1)]);
      assert.ok(ms >= 250 && ms < 3000, `closed after ${ms} ms`);
    } finally {
      clearInterval(drip);
    }
    assert.deepEqual(log, ['no hello within 0.3 s']);
    assert.equal(s.connected.length, 0);
  });

  it('closes an authenticated agent that sends a line over maxLine, and keeps its earlier messages', async () => {
    const log: string[] = [];
    const got: string[] = [];
    const s = await start({ maxLine: 64 << 10 }, log, got);
    const agent = await peer(s.address);
    peers.push(agent.socket);
    agent.socket.write(hello(s.token) + sample(1));
    const piece = 'z'.repeat(16 << 10);
    for (let i = 0; i < 16 && !agent.socket.destroyed; i++) agent.socket.write(piece);
    assert.ok(await within(agent.closed, 2000), 'a 256 KiB line: closed');
    assert.deepEqual(got, ['hello 4242', 'sample']);
    assert.deepEqual(log, ['line too long']);
  });

  it('a wrong token is refused and frees its slot', async () => {
    const log: string[] = [];
    const s = await start({}, log);
    const p = await peer(s.address);
    peers.push(p.socket);
    p.socket.write(hello('0'.repeat(48)));
    assert.ok(await within(p.closed, 2000));
    assert.deepEqual(log, ['wrong token']);
    assert.equal(s.pendingCount, 0);
  });
});
