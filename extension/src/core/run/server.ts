import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFromAgent } from './protocol';
import type { FromAgent, Hello, ToAgent } from './protocol';

const MAX_LINE = 1 << 20;

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
  private nextId = 1;

  private constructor(
    private readonly server: Server,
    readonly address: string,
    readonly token: string,
    private readonly dir: string | undefined,
    private readonly on: RunServerEvents,
  ) {}

  static async listen(on: RunServerEvents = {}): Promise<RunServer> {
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
    self = new RunServer(server, address, token, dir, on);
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

  private accept(socket: Socket): void {
    let buf = '';
    let stream: AgentStream | undefined;
    const refuse = (why: string) => {
      this.on.refused?.(why);
      socket.destroy();
    };
    const timer = setTimeout(() => refuse('no hello within 5 s'), 5000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > MAX_LINE && !buf.includes('\n')) return refuse('line too long');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = parseFromAgent(line);
        if (!stream) {
          clearTimeout(timer);
          if (!m || m.type !== 'hello') return refuse('the first message was not a hello');
          if (!this.tokenOk(m.token)) return refuse('wrong token');
          const id = this.nextId++;
          stream = { id, hello: m, send: (cmd) => void socket.write(JSON.stringify(cmd) + '\n') };
          this.streams.set(id, { stream, socket });
          this.on.connect?.(stream);
        } else if (m) this.on.message?.(stream, m);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
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
    this.streams.clear();
    await new Promise<void>((r) => this.server.close(() => r()));
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
