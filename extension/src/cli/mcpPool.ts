import { Worker } from 'node:worker_threads';
import type { Roots } from '../core/tools/roots';
import type { FromWorker, ToWorker } from './mcpWorker';
import { WORKER_TAG } from './mcpWorker';

/** How far one call may go before it is stopped: its worker's heap, its time, and calls at once. */
export interface CallLimits {
  heapMb: number;
  deadlineMs: number;
  workers: number;
}

export const DEFAULT_LIMITS: CallLimits = { heapMb: 1024, deadlineMs: 60_000, workers: 2 };

const positive = (v: string | undefined, fallback: number) => (v !== undefined && /^[1-9]\d{0,8}$/.test(v) ? Number(v) : fallback);

/** The limits, with HEADROOM_MCP_HEAP_MB and HEADROOM_MCP_DEADLINE_MS where set (positive integers). */
export function limitsFromEnv(env: NodeJS.ProcessEnv): CallLimits {
  return {
    heapMb: positive(env.HEADROOM_MCP_HEAP_MB, DEFAULT_LIMITS.heapMb),
    deadlineMs: positive(env.HEADROOM_MCP_DEADLINE_MS, DEFAULT_LIMITS.deadlineMs),
    workers: DEFAULT_LIMITS.workers,
  };
}

/** A call's outcome: the tool's text, or a tool error's (the worker's reason, or why it was stopped). */
export type Outcome = { ok: true; text: string } | { ok: false; text: string };

const mib = (mb: number) => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GiB` : `${mb} MiB`);
const duration = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Tool calls, each in a worker thread of its own while it runs: a call that exhausts its heap,
 * crashes or passes its deadline is stopped with its worker, and the server (its main thread)
 * answers the other requests meanwhile. A worker that answered is kept for the next call (its
 * parser and last snapshots stay loaded); at most `workers` calls run at once, the rest wait.
 */
export class ToolPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private nextId = 1;

  constructor(
    private readonly script: string,
    readonly limits: CallLimits,
  ) {}

  async call(name: string, args: Record<string, unknown>, roots: Roots): Promise<Outcome> {
    if (this.running >= this.limits.workers) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await this.run({ type: 'call', id: this.nextId++, name, args, roots });
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Ends every worker (the server is closing). */
  async close(): Promise<void> {
    this.idle.length = 0;
    await Promise.all([...this.live].map((w) => w.terminate()));
  }

  private spawn(): Worker {
    // The CLI bundle again: main.ts runs `mcp`, which sees WORKER_TAG and serves calls.
    const w = new Worker(this.script, {
      argv: ['mcp'],
      workerData: WORKER_TAG,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb },
      // stdout is the MCP channel: nothing a worker prints may reach it.
      stdout: true,
    });
    w.stdout.resume();
    w.unref();
    this.live.add(w);
    w.once('exit', () => this.live.delete(w));
    return w;
  }

  private run(m: ToWorker): Promise<Outcome> {
    const w = this.idle.pop() ?? this.spawn();
    return new Promise<Outcome>((resolve) => {
      const done = (o: Outcome, keep: boolean) => {
        clearTimeout(timer);
        w.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (keep) this.idle.push(w);
        else void w.terminate();
        resolve(o);
      };
      const stopped = (why: string) => done({ ok: false, text: `the analysis ${why} and was stopped` }, false);
      const onMessage = (r: FromWorker) => {
        if (r.id === m.id) done({ ok: r.type === 'answer', text: r.text }, true);
      };
      const onError = (e: Error & { code?: string }) =>
        stopped(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (${mib(this.limits.heapMb)})` : `crashed (${e.name}: ${e.message})`,
        );
      const onExit = (code: number) => stopped(`ended unexpectedly (exit code ${code})`);
      const timer = setTimeout(() => stopped(`took longer than ${duration(this.limits.deadlineMs)}`), this.limits.deadlineMs);
      w.on('message', onMessage).once('error', onError).once('exit', onExit);
      w.postMessage(m);
    });
  }
}
