import type { Snapshot } from '../snapshot/model';
import type { ClassNames } from '../source/classNames';
import type { DeviceAnalysis } from './analyze';
import { BUCKET_LABELS } from './attribution';
import type { BucketKind } from './attribution';
import { NOT_BACKWARD } from './backward';
import { plumbingGroup } from './plumbing';
import { hasModuleScopes, scopeReader } from './modules';
import type { ParamsCredit } from './params';
import { liveAt, Origin } from './replay';
import { FrameKind } from './userCode';

/** 'tensor': a leaf naming the parameter, gradient or optimizer state a block is (params.ts). */
export type CallKind = 'user' | 'library' | 'bucket' | 'tensor';

/** One node of the call tree at an instant: a kept frame (user or model code) or a named bucket. */
export interface CallNode {
  kind: CallKind;
  /** Frame id for user and library nodes (and a backward() site); -1 for buckets and autograd nodes. */
  frame: number;
  /** `GPT2Attention.forward` when the source names the class, else the function; a bucket's label. */
  label: string;
  file: string;
  line: number;
  func: string;
  /** Bytes live at the instant with this node on their path; the children's plus `selfBytes`. */
  bytes: number;
  blocks: number;
  /** Bytes whose path ends here (allocated by this line itself, or through plumbing only). */
  selfBytes: number;
  selfBlocks: number;
  /** Plumbing groups folded into the edge from the parent to this node. */
  folded: string[];
  /** Plumbing groups that the self bytes were allocated through (e.g. a Lightning loop's own tensors). */
  selfVia: string[];
  /** Set on a plumbing frame kept because it allocated itself (the innermost Python frame): its group. */
  plumbing?: string;
  children: CallNode[];
}

export interface CallTree {
  root: CallNode;
  /** Per user line (`${line}\0${file}`, as attribution keys lines): the code beneath it, merged over its callers; its bytes are the line's self bytes. */
  beneath: Map<string, CallNode>;
}

/** A node under construction: children by key, folded groups as sets. */
interface Acc extends CallNode {
  kids: Map<number | string, Acc>;
  foldSet: Set<string>;
  viaSet: Set<string>;
}

const MAX_DEPTH = 512;

export const lineKey = (file: string, line: number): string => `${line}\u0000${file}`;

function node(kind: CallKind, frame: number, label: string, file = '', line = 0, func = ''): Acc {
  const n: Acc = { kind, frame, label, file, line, func, bytes: 0, blocks: 0, selfBytes: 0, selfBlocks: 0, folded: [], selfVia: [], children: [], kids: new Map(), foldSet: new Set(), viaSet: new Set() };
  return n;
}

/** Live blocks that take the same place in the tree. */
interface Group {
  bytes: number;
  blocks: number;
  kind: BucketKind | 'line';
  path: Path | undefined;
  site: number;
  node: string | undefined;
  scope: string | undefined;
  /** Index of the named tensor in ParamsCredit.tensors, when the run's optimizer steps saw this block. */
  tensor?: number;
}

/** A frame node named by the module instance that ran it. */
function scoped(n: Acc, path: string): Acc {
  n.label = `${path} (${n.label})`;
  return n;
}

/** A stack reduced to what the tree shows, outermost first: kept frames, with the plumbing folded before each. */
interface Path {
  frames: number[];
  folds: (string[] | undefined)[];
  /** Plumbing after the last kept frame. */
  tail: string[];
  /** Index in `frames` of the innermost user frame, or -1. */
  self: number;
  /** Index in `frames` of the innermost `forward` (the module running when the block was made), or -1. */
  module: number;
  python: boolean;
}

/**
 * The call tree of the memory live at trace index `index`: user lines and the model code beneath
 * them, from the stacks the snapshot already holds (no hooks). Blocks with no user frame hang under
 * the same buckets as the line attribution's, so the tree's root adds up to the live total.
 */
export function callTree(s: Snapshot, a: DeviceAnalysis, index: number, names?: ClassNames, params?: ParamsCredit): CallTree {
  const e = a.replay.elements;
  const live = liveAt(e, index);
  // Blocks the run's optimizer steps named (params.ts, same instant): a leaf per named tensor.
  const credit = params && params.index === index && params.live.length === live.length ? params.credit : undefined;
  const cls = a.classifier;
  const paths: (Path | undefined)[] = [];
  const label = (f: number): string => {
    const func = s.frames.nameOf(f);
    const file = s.frames.fileOf(f);
    return names?.qualname(file, s.frames.lineOf(f), func) ?? `${moduleName(file)}.${func}`;
  };
  const frameNode = (f: number): Acc => {
    const n = node(cls.kind(f) === FrameKind.User ? 'user' : 'library', f, label(f), s.frames.fileOf(f), s.frames.lineOf(f), s.frames.nameOf(f));
    const group = n.kind === 'library' ? groupOf(f) : undefined;
    if (group !== undefined) {
      n.plumbing = group;
      n.label = `${n.label} [${group}]`;
    }
    return n;
  };

  const plumbingOf = new Map<number, string | undefined>();
  const groupOf = (f: number): string | undefined => {
    if (!plumbingOf.has(f)) plumbingOf.set(f, plumbingGroup(s.frames.fileOf(f), s.frames.nameOf(f)));
    return plumbingOf.get(f);
  };
  const pathOf = (stack: number): Path => {
    let p = paths[stack];
    if (p) return p;
    p = { frames: [], folds: [], tail: [], self: -1, module: -1, python: false };
    const fr = s.stacks.get(stack);
    // The innermost Python frame made the tensor: kept even when it is plumbing (accelerate's
    // _convert_to_fp32 copies the logits), so that memory is never hidden in a folded edge.
    let innermost = 0;
    while (innermost < fr.length && cls.kind(fr[innermost]!) === FrameKind.Cpp) innermost++;
    let pending: string[] = [];
    for (let j = fr.length - 1; j >= 0; j--) {
      const f = fr[j]!;
      const kind = cls.kind(f);
      if (kind === FrameKind.Cpp) continue;
      p.python = true;
      const group = kind === FrameKind.Library ? groupOf(f) : undefined;
      if (group !== undefined && j !== innermost) {
        if (!pending.includes(group)) pending.push(group);
        continue;
      }
      // A crafted stack of a million frames: the tree (and its recursion) stops at a depth no model reaches.
      if (p.frames.length === MAX_DEPTH) {
        pending = ['deep stack, cut'];
        break;
      }
      if (kind === FrameKind.User) p.self = p.frames.length;
      if (s.frames.nameOf(f) === 'forward') p.module = p.frames.length;
      p.frames.push(f);
      p.folds.push(pending.length ? pending : undefined);
      pending = [];
    }
    p.tail = pending;
    paths[stack] = p;
    return p;
  };

  const root = node('bucket', -1, 'all live memory');
  const beneath = new Map<string, Acc>();
  const add = (n: Acc, g: Group): void => {
    n.bytes += g.bytes;
    n.blocks += g.blocks;
  };
  const child = (parent: Acc, key: number | string, make: () => Acc, fold?: readonly string[]): Acc => {
    let c = parent.kids.get(key);
    if (!c) parent.kids.set(key, (c = make()));
    if (fold) for (const g of fold) c.foldSet.add(g);
    return c;
  };
  const walk = (start: Acc, p: Path, from: number, g: Group): void => {
    let n = start;
    for (let i = from; i < p.frames.length; i++) {
      const f = p.frames[i]!;
      // With module scopes recorded, the innermost forward is this module instance (transformer.h.3.attn).
      if (i === p.module && g.scope) n = child(n, `${f}|${g.scope}`, () => scoped(frameNode(f), g.scope!), p.folds[i]);
      else n = child(n, f, () => frameNode(f), p.folds[i]);
      add(n, g);
    }
    for (const x of p.tail) n.viaSet.add(x);
    settle(n, g);
  };
  /** Where a group's path ends: its own bytes, or a leaf naming the parameter tensor it is. */
  const settle = (n: Acc, g: Group): void => {
    if (g.tensor !== undefined) {
      const t = params!.tensors[g.tensor]!;
      n = child(n, `t${g.tensor}`, () => node('tensor', -1, `${t.name} (${t.kind === 'optimizer_state' ? `optimizer state${t.key ? ` ${t.key}` : ''}` : t.kind})`));
      add(n, g);
    }
    n.selfBytes += g.bytes;
    n.selfBlocks += g.blocks;
  };

  // Blocks grouped first (by stack, module scope, bucket): the tree is then built once per group,
  // so a million live blocks cost a pass over numbers, not a million walks down the tree.
  const groups: Group[] = [];
  // A user line's group is found by stack id (and module scope), the buckets' by a short key: a
  // million blocks then cost no string made per block.
  const byStack = new Int32Array(s.stacks.size + 1).fill(-1);
  const byScope = new Map<string, Map<number, number>>();
  const byKey = new Map<string, number>();
  const scopeOf = hasModuleScopes(s) ? scopeReader(s, a) : undefined;
  const backwardKey = (k: number): string => `w${a.backward.site[k]}|${a.backward.node.get(k) ?? ''}`;
  for (let i = 0; i < live.length; i++) {
    const k = live[i]!;
    const origin = e.origin[k]!;
    const stack = origin !== Origin.UnmatchedFree ? e.stack[k]! : -1;
    const p = stack >= 0 ? pathOf(stack) : undefined;
    let kind: BucketKind | 'line' = 'line';
    let scope: string | undefined;
    let gi: number;
    const c = credit ? credit[i]! : -1;
    if (c >= 0) {
      kind = p && p.self >= 0 ? 'line' : origin !== Origin.Trace ? 'before_recording' : a.backward.site[k] !== NOT_BACKWARD ? 'backward' : p?.python ? 'library' : 'no_stack';
      const key = `t${c}|${kind}|${stack}|${a.backward.site[k]}|${a.backward.node.get(k) ?? ''}`;
      gi = byKey.get(key) ?? -1;
      if (gi < 0) byKey.set(key, (gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: a.backward.site[k]!, node: a.backward.node.get(k), scope, tensor: c }) - 1));
    } else if (p && p.self >= 0) {
      const sc = scopeOf?.(k);
      scope = sc && sc.phase === 'forward' && p.module >= 0 ? sc.path : undefined;
      if (scope === undefined) {
        gi = byStack[stack]!;
        if (gi < 0) byStack[stack] = gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: -1, node: undefined, scope }) - 1;
      } else {
        let m = byScope.get(scope);
        if (!m) byScope.set(scope, (m = new Map()));
        gi = m.get(stack) ?? -1;
        if (gi < 0) m.set(stack, (gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: -1, node: undefined, scope }) - 1));
      }
    } else {
      kind = origin !== Origin.Trace ? 'before_recording' : a.backward.site[k] !== NOT_BACKWARD ? 'backward' : p?.python ? 'library' : 'no_stack';
      gi = byKey.get(kind === 'library' ? `b${stack}` : kind === 'backward' ? backwardKey(k) : kind) ?? -1;
    }
    if (gi < 0) {
      const key = kind === 'library' ? `b${stack}` : kind === 'backward' ? backwardKey(k) : kind;
      byKey.set(key, (gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: a.backward.site[k]!, node: a.backward.node.get(k), scope }) - 1));
    }
    const g = groups[gi]!;
    g.bytes += e.size[k]!;
    g.blocks++;
  }

  for (const g of groups) {
    add(root, g);
    const p = g.path;
    if (g.kind === 'line') {
      walk(root, p!, 0, g);
      const self = p!.frames[p!.self]!;
      const key = lineKey(s.frames.fileOf(self), s.frames.lineOf(self));
      let b = beneath.get(key);
      if (!b) beneath.set(key, (b = frameNode(self)));
      add(b, g);
      walk(b, p!, p!.self + 1, g);
      continue;
    }
    const bucket = child(root, g.kind, () => node('bucket', -1, `[${BUCKET_LABELS[g.kind as BucketKind]}]`));
    add(bucket, g);
    if (g.kind === 'library') {
      walk(bucket, p!, 0, g);
      continue;
    }
    let n = bucket;
    if (g.kind === 'backward') {
      const site = g.site;
      if (site >= 0) {
        n = child(bucket, site, () => node('user', site, `backward() at ${s.frames.nameOf(site)}`, s.frames.fileOf(site), s.frames.lineOf(site), s.frames.nameOf(site)));
        add(n, g);
      }
      if (g.node) {
        const name = g.node;
        n = child(n, `node:${name}`, () => node('bucket', -1, name));
        add(n, g);
      }
    }
    settle(n, g);
  }
  return { root: finish(root), beneath: new Map([...beneath].map(([k, v]) => [k, finish(v)])) };
}

/** A file's module name for a frame the source does not name by class (`modeling_gpt2` of …/modeling_gpt2.py). */
function moduleName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  return base.endsWith('.py') ? base.slice(0, -3) : base;
}

/** Sorts children by bytes (largest first), turns sets into arrays and drops the build-time fields. */
function finish(n: Acc): CallNode {
  const children = [...n.kids.values()].map(finish).sort((x, y) => y.bytes - x.bytes || x.label.localeCompare(y.label));
  const { kids: _k, foldSet, viaSet, ...rest } = n;
  return { ...rest, folded: [...foldSet], selfVia: [...viaSet], children };
}
