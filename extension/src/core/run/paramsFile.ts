import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { ioError, readSideRecords } from '../safeFile';

/**
 * params.jsonl, written by the agent after optimizer steps (extension/agent/headroom_agent/params.py
 * documents the lines): which parameter, gradient and optimizer-state tensor lived at which address.
 */
export type ParamKind = 'parameter' | 'gradient' | 'optimizer_state';

/** One tensor as optimizer steps saw it: the same address and size for observations [from, to) of its optimizer. */
export interface ParamTensor {
  opt: number;
  /** The name in the model (`transformer.h.0.attn.c_attn.weight`); `param[i] (shape)` when not `named`. */
  name: string;
  named: boolean;
  kind: ParamKind;
  /** The optimizer state's key (`exp_avg`), else null. */
  key: string | null;
  /** CUDA device index (-1: CPU, recorded by tests only). */
  device: number;
  addr: number;
  bytes: number;
  from: number;
  to: number;
}

export interface ParamRecords {
  tensors: ParamTensor[];
  /** Per optimizer: the times it was observed, µs since the epoch (the snapshot's clock), ascending. */
  observations: Float64Array[];
  /** Per optimizer: its class (`AdamW`). */
  optimizers: string[];
  /** The agent stopped at its size cap: later steps are not in the file. */
  capped: boolean;
  /** Lines that were no valid record (torn, foreign, out of range). */
  skipped: number;
}

/** The agent caps the file at 4 MiB; anything past these bounds is not its own. */
export const PARAMS_LIMITS = { maxBytes: 16 << 20, maxLine: 8 << 20, optimizers: 1024, names: 1_000_000, nameChars: 4096 } as const;

const isInt = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;
const KINDS: Record<string, ParamKind> = { p: 'parameter', g: 'gradient' };

interface Opt {
  names: string[];
  unnamed: Set<number>;
  obs: number[];
  open: Map<string, ParamTensor>;
}

/** The records of params.jsonl's lines, in file order. */
export function parseParamRecords(lines: Iterable<Record<string, unknown>>): ParamRecords {
  const opts: Opt[] = [];
  const optimizers: string[] = [];
  const tensors: ParamTensor[] = [];
  let capped = false;
  let skipped = 0;
  const closeAll = (o: Opt) => {
    for (const t of o.open.values()) t.to = o.obs.length;
    o.open.clear();
  };
  for (const m of lines) {
    const opt = m.opt;
    if (m.type === 'capped') {
      capped = true;
      continue;
    }
    if (!isInt(opt, 0) || opt >= PARAMS_LIMITS.optimizers || typeof m.t !== 'number' || !Number.isFinite(m.t)) {
      skipped++;
      continue;
    }
    if (m.type === 'names') {
      const names = m.names;
      if (
        !Array.isArray(names) ||
        names.length > PARAMS_LIMITS.names ||
        !names.every((n) => typeof n === 'string' && n.length <= PARAMS_LIMITS.nameChars)
      ) {
        skipped++;
        continue;
      }
      const o = (opts[opt] ??= { names: [], unnamed: new Set(), obs: [], open: new Map() });
      closeAll(o);
      o.names = names as string[];
      o.unnamed = new Set(Array.isArray(m.unnamed) ? m.unnamed.filter((i) => isInt(i, 0)) : []);
      optimizers[opt] = typeof m.optimizer === 'string' ? m.optimizer.slice(0, 200) : 'optimizer';
      continue;
    }
    const o = opts[opt];
    if (!o || (m.type !== 'map' && m.type !== 'seen')) {
      skipped++;
      continue;
    }
    // One clock, read on the workload's thread; should it step back, keep the order.
    const j = o.obs.length;
    o.obs.push(Math.max(m.t, o.obs[j - 1] ?? -Infinity));
    if (m.type === 'seen') continue;
    if (m.full === true) {
      for (const t of o.open.values()) t.to = j;
      o.open.clear();
    }
    for (const g of Array.isArray(m.gone) ? m.gone : []) {
      const key = Array.isArray(g) ? `${g[0]}|${g[1]}` : '';
      const t = o.open.get(key);
      if (t) t.to = j;
      o.open.delete(key);
    }
    for (const e of Array.isArray(m.set) ? m.set : []) {
      const t = entry(e, opt, o, j);
      if (!t) {
        skipped++;
        continue;
      }
      const key = `${e[0]}|${e[1]}`;
      const old = o.open.get(key);
      if (old) old.to = j;
      o.open.set(key, t);
      tensors.push(t);
    }
  }
  for (const o of opts) if (o) closeAll(o);
  return { tensors, observations: opts.map((o) => Float64Array.from(o?.obs ?? [])), optimizers, capped, skipped };
}

/** One `set` entry: [index, "p" | "g" | "s:<key>", device, address, bytes]. */
function entry(e: unknown, opt: number, o: Opt, from: number): ParamTensor | undefined {
  if (!Array.isArray(e) || e.length < 5) return undefined;
  const [i, k, device, addr, bytes] = e as unknown[];
  if (!isInt(i, 0) || i >= o.names.length || typeof k !== 'string' || !isInt(device, -1) || !isInt(addr, 1) || !isInt(bytes, 0))
    return undefined;
  const state = k.startsWith('s:');
  const kind = state ? 'optimizer_state' : KINDS[k];
  if (!kind) return undefined;
  return {
    opt,
    name: o.names[i]!,
    named: !o.unnamed.has(i),
    kind,
    key: state ? k.slice(2, 202) : null,
    device,
    addr,
    bytes,
    from,
    to: Infinity,
  };
}

/** Reads a params.jsonl (a regular file inside its folder, as every side file): typed errors. */
export function readParamsFile(path: string): ParamRecords {
  try {
    return parseParamRecords(
      readSideRecords(path, { root: dirname(path), maxBytes: PARAMS_LIMITS.maxBytes, maxLine: PARAMS_LIMITS.maxLine }),
    );
  } catch (e) {
    throw ioError(path, e);
  }
}

/** The records beside a snapshot in a run folder; undefined when the run wrote none. */
export function paramsBeside(snapshotPath: string): ParamRecords | undefined {
  const p = join(dirname(snapshotPath), 'params.jsonl');
  return existsSync(p) ? readParamsFile(p) : undefined;
}
