import type { Snapshot } from '../snapshot/model';
import type { ClassNames } from '../source/classNames';
import { FrameKind } from './userCode';
import type { FrameClassifier } from './userCode';

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
export interface Acc extends CallNode {
  kids: Map<number | string, Acc>;
  foldSet: Set<string>;
  viaSet: Set<string>;
}

export const lineKey = (file: string, line: number): string => `${line}\u0000${file}`;

export function node(kind: CallKind, frame: number, label: string, file = '', line = 0, func = ''): Acc {
  return {
    kind,
    frame,
    label,
    file,
    line,
    func,
    bytes: 0,
    blocks: 0,
    selfBytes: 0,
    selfBlocks: 0,
    folded: [],
    selfVia: [],
    children: [],
    kids: new Map(),
    foldSet: new Set(),
    viaSet: new Set(),
  };
}

/** The child of `parent` under `key`, made on first use; the plumbing folded on its edge is added to it. */
export function child(parent: Acc, key: number | string, make: () => Acc, fold?: readonly string[]): Acc {
  let c = parent.kids.get(key);
  if (!c) parent.kids.set(key, (c = make()));
  if (fold) for (const g of fold) c.foldSet.add(g);
  return c;
}

/** A frame node named by the module instance that ran it. */
export function scoped(n: Acc, path: string): Acc {
  n.label = `${path} (${n.label})`;
  return n;
}

/**
 * Makes frame nodes: named by class where the source says (`GPT2Attention.forward`), else by file
 * and function; a plumbing frame kept because it allocated itself says its group.
 */
export function frameNodes(
  s: Snapshot,
  cls: FrameClassifier,
  groupOf: (f: number) => string | undefined,
  names?: ClassNames,
): (f: number) => Acc {
  return (f) => {
    const file = s.frames.fileOf(f);
    const func = s.frames.nameOf(f);
    const line = s.frames.lineOf(f);
    const n = node(
      cls.kind(f) === FrameKind.User ? 'user' : 'library',
      f,
      names?.qualname(file, line, func) ?? `${moduleName(file)}.${func}`,
      file,
      line,
      func,
    );
    const group = n.kind === 'library' ? groupOf(f) : undefined;
    if (group !== undefined) {
      n.plumbing = group;
      n.label = `${n.label} [${group}]`;
    }
    return n;
  };
}

/** A file's module name for a frame the source does not name by class (`modeling_gpt2` of …/modeling_gpt2.py). */
function moduleName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  return base.endsWith('.py') ? base.slice(0, -3) : base;
}

/** Sorts children by bytes (largest first), turns sets into arrays and drops the build-time fields. */
export function finish(n: Acc): CallNode {
  const children = [...n.kids.values()].map(finish).sort((x, y) => y.bytes - x.bytes || x.label.localeCompare(y.label));
  const { kids: _k, foldSet, viaSet, ...rest } = n;
  return { ...rest, folded: [...foldSet], selfVia: [...viaSet], children };
}
