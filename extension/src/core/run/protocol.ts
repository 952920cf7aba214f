/**
 * The agent ↔ editor channel: JSON lines over a local socket. The first line from the agent is a
 * hello carrying the run's token; anything else first, or a wrong token, closes the connection.
 */
export interface Hello {
  type: 'hello';
  token: string;
  pid: number;
  rank: number | null;
  local_rank: number | null;
  world_size: number | null;
  run_dir: string;
}

export interface Sample {
  type: 'sample';
  /** µs since the epoch. */
  t: number;
  device: number;
  allocated: number;
  reserved: number;
  active: number;
  inactive_split: number;
  requested: number;
  max_allocated: number;
  max_reserved: number;
  max_requested: number;
  retries: number;
  ooms: number;
  device_used?: number;
  device_total?: number;
}

export type AgentEventName = 'recording' | 'snapshot' | 'oom' | 'exit' | 'backward' | 'exception' | 'window_open' | 'window_close';

export interface AgentEvent {
  type: 'event';
  event: AgentEventName;
  t: number;
  [key: string]: unknown;
}

export interface AgentLog {
  type: 'log';
  level: 'info' | 'warning' | 'error';
  message: string;
  t: number;
}

export type FromAgent = Hello | Sample | AgentEvent | AgentLog;

export type ToAgent = { type: 'capture' } | { type: 'stop' };

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Validates one line from an agent; undefined for anything malformed. */
export function parseFromAgent(line: string): FromAgent | undefined {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined;
  }
  return fromAgent(m);
}

/** An already parsed message, checked as parseFromAgent checks a line. */
export function fromAgent(m: unknown): FromAgent | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'hello':
      return typeof o.token === 'string' && num(o.pid) ? (o as unknown as Hello) : undefined;
    case 'sample':
      return num(o.t) && num(o.device) && num(o.allocated) && num(o.reserved) && num(o.max_allocated)
        ? (o as unknown as Sample)
        : undefined;
    case 'event':
      return typeof o.event === 'string' && num(o.t) ? (o as unknown as AgentEvent) : undefined;
    case 'log':
      return typeof o.message === 'string' ? (o as unknown as AgentLog) : undefined;
    default:
      return undefined;
  }
}
