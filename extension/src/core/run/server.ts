import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFromAgent } from './protocol';
import type { FromAgent, Hello, ToAgent } from './protocol';

/**
 * The socket is reachable by any local process that can reach the folder (and, on Windows, the
 * pipe), so what a peer may cost before it proves it knows the token is bounded: how many may wait,
 * what each may send before its hello (a hello is a few hundred bytes), and for how long.
 */
export interface RunServerLimits {
  /** Connections waiting for their hello; past it, the oldest is closed. */
  maxPending: number;
  /** Bytes a connection may send before its hello line. */
  maxHelloBytes: number;
  /** A connection that has not said hello by then is dropped (a slow talker holds a slot). */
  helloMs: number;
  /** The longest line an agent may send once accepted (a sample or event is a few KiB). */
  maxLine: number;
}

export const RUN_SERVER_LIMITS: RunServerLimits = { maxPending: 16, maxHelloBytes: 64 << 10, helloMs: 5000, maxLine: 1 << 20 };

/** One agent process (a rank under torchrun) connected to the editor. */
export interface AgentStream {
  id: number;
  hello: Hello;
  send(cmd: ToAgent): void;
}

export interface RunServerEvents {
  connect?(s: AgentStream): void;
  message?(s: AgentStream, m: FromAgent): void;
  disconnect?(s: AgentStream): void;
  /** A connection that never presented the token. */
  refused?(reason: string): void;
}

/**
 * The editor's end of the channel: a Unix domain socket in a fresh 0700 directory (a named pipe on
 * Windows), and a per-run token that every agent must present first.
 */
export class RunServer {
  private readonly streams = new Map<number, { stream: AgentStream; socket: Socket }>();
  private readonly pending = new Set<Socket>();
  private nextId = 1;
  /** Set while connections over maxPending are being closed: said once per burst, not per socket. */
  private overflowing = false;

  private constructor(
    private readonly server: Server,
    readonly address: string,
    readonly token: string,
    private readonly dir: string | undefined,
    private readonly on: RunServerEvents,
    private readonly limits: RunServerLimits,
  ) {}

  static async listen(on: RunServerEvents = {}, limits: Partial<RunServerLimits> = {}): Promise<RunServer> {
    const token = randomBytes(24).toString('hex');
    let dir: string | undefined;
    let address: string;
    if (process.platform === 'win32') address = `\\\\.\\pipe\\headroom-${randomBytes(8).toString('hex')}`;
    else {
      dir = await mkdtemp(join(tmpdir(), 'headroom-')); // created 0700
      address = join(dir, 'agent.sock');
    }
    let self: RunServer | undefined;
    const server = createServer((socket) => self!.accept(socket));
    self = new RunServer(server, address, token, dir, on, { ...RUN_SERVER_LIMITS, ...limits });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address, () => resolve());
    });
    return self;
  }

  get connected(): AgentStream[] {
    return [...this.streams.values()].map((s) => s.stream);
  }

  broadcast(cmd: ToAgent): void {
    for (const s of this.streams.values()) s.stream.send(cmd);
  }

  /** Connections not yet authenticated (for tests and the log). */
  get pendingCount(): number {
    return this.pending.size;
  }

  private accept(socket: Socket): void {
    const lim = this.limits;
    if (this.pending.size >= lim.maxPending) {
      // The oldest waiting connection makes room: a real agent says hello within milliseconds of
      // connecting, so a flood of idle connections cannot keep it out, and memory stays bounded.
      if (!this.overflowing) this.on.refused?.(`more than ${lim.maxPending} connections waiting for a hello: the oldest are closed`);
      this.overflowing = true;
      const oldest = this.pending.values().next().value;
      if (oldest) {
        this.pending.delete(oldest);
        oldest.destroy();
      }
    }
    this.pending.add(socket);
    let buf = '';
    let stream: AgentStream | undefined;
    const settle = () => {
      clearTimeout(timer);
      this.pending.delete(socket);
      if (this.pending.size < lim.maxPending) this.overflowing = false;
    };
    const refuse = (why: string) => {
      settle();
      this.on.refused?.(why);
      socket.destroy();
    };
    const timer = setTimeout(() => refuse(`no hello within ${lim.helloMs / 1000} s`), lim.helloMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (socket.destroyed) return;
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!stream && line.length > lim.maxHelloBytes) return refuse('hello too long');
        if (line.length > lim.maxLine) return refuse('line too long');
        const m = parseFromAgent(line);
        if (!stream) {
          if (!m || m.type !== 'hello') return refuse('the first message was not a hello');
          if (!this.tokenOk(m.token)) return refuse('wrong token');
          settle();
          const id = this.nextId++;
          stream = { id, hello: m, send: (cmd) => void socket.write(JSON.stringify(cmd) + '\n') };
          this.streams.set(id, { stream, socket });
          this.on.connect?.(stream);
        } else if (m) this.on.message?.(stream, m);
        if (socket.destroyed) return; // a handler closed it
      }
      // What is left is an unfinished line: bounded before the hello and after it.
      if (!stream && buf.length > lim.maxHelloBytes) return refuse('hello too long');
      if (buf.length > lim.maxLine) return refuse('line too long');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      settle();
      if (stream && this.streams.delete(stream.id)) this.on.disconnect?.(stream);
    });
  }

  private tokenOk(t: string): boolean {
    const a = Buffer.from(t);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  async close(): Promise<void> {
    for (const { socket } of this.streams.values()) socket.destroy();
    for (const socket of this.pending) socket.destroy();
    this.streams.clear();
    this.pending.clear();
    await new Promise<void>((r) => this.server.close(() => r()));
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
