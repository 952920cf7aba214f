import type { Snapshot } from '../snapshot/model';
import { FrameKind } from './userCode';
import type { FrameClassifier } from './userCode';

/** What a frame tells about the autograd backward pass. */
const enum Role {
  None = 0,
  /** Python entry into backward on the caller's thread (`loss.backward()` → torch.autograd). */
  Entry = 1,
  /** Checkpoint recomputation, which runs forward code during backward. */
  Recompute = 2,
  /** A C++ frame of the autograd engine (stacks='all'). */
  Engine = 3,
}

const ENTRY = /torch\/(?:_tensor\.py|autograd\/__init__\.py|autograd\/graph\.py)$/;
const ENTRY_NAMES = new Set(['backward', '_make_grads', '_engine_run_backward', 'grad']);
const RECOMPUTE = /torch\/utils\/checkpoint\.py$/;

const isWord = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; // [0-9A-Za-z_], as \w

/**
 * The autograd node a C++ frame names (`torch::autograd::generated::MmBackward0::apply` → MmBackward0),
 * or ''. What /(?:torch::autograd::generated::)?(\w*Backward\w*)::apply/ finds (the first word run
 * holding "Backward" right before "::apply"), in linear time: that pattern backtracks cubically
 * on a long "BackwardBackward…" name. Word runs before distinct "::apply"s are disjoint.
 */
export function autogradNode(name: string): string {
  for (let p = name.indexOf('::apply'); p >= 0; p = name.indexOf('::apply', p + 1)) {
    let q = p;
    while (q > 0 && isWord(name.charCodeAt(q - 1))) q--;
    const run = name.slice(q, p);
    if (run.includes('Backward')) return run;
  }
  return '';
}

/** What one stack tells the backward classifier; a function of its frames alone. */
export interface StackFacts {
  python: boolean;
  entry: boolean;
  recompute: boolean;
  engine: boolean;
  user: boolean;
  /** The first user frame after an entry frame, or -1. */
  callSite: number;
  /** The first autograd node a C++ frame names, or ''. */
  nodeName: string;
}

/**
 * Facts per stack id, each computed once: a stack shared by many allocations (one list of
 * millions of frames referenced by every entry) is walked once, not once per allocation.
 */
export function stackFacts(s: Snapshot, cls: FrameClassifier): (stack: number) => StackFacts {
  const roles = new Int8Array(s.frames.size).fill(-1);
  const nodes: (string | undefined)[] = []; // by frame id: dense, cheaper than a Map per visit
  const role = (f: number): Role => {
    let r = roles[f]!;
    if (r < 0) {
      const file = s.frames.fileOf(f).replace(/\\/g, '/');
      const name = s.frames.nameOf(f);
      if (ENTRY.test(file) && ENTRY_NAMES.has(name)) r = Role.Entry;
      else if (RECOMPUTE.test(file)) r = Role.Recompute;
      else if (cls.kind(f) === FrameKind.Cpp && name.startsWith('torch::autograd::Engine::')) r = Role.Engine;
      else r = Role.None;
      roles[f] = r;
    }
    return r as Role;
  };
  const node = (f: number): string => {
    let n = nodes[f];
    if (n === undefined) nodes[f] = n = autogradNode(s.frames.nameOf(f));
    return n;
  };
  const cache = new Map<number, StackFacts>();
  return (stack) => {
    let facts = cache.get(stack);
    if (facts) return facts;
    facts = { python: false, entry: false, recompute: false, engine: false, user: false, callSite: -1, nodeName: '' };
    const frames = s.stacks.get(stack);
    for (let j = 0; j < frames.length; j++) {
      const f = frames[j]!;
      const kind = cls.kind(f);
      if (kind !== FrameKind.Cpp) facts.python = true;
      if (kind === FrameKind.User) facts.user = true;
      const r = role(f);
      if (r === Role.Entry) facts.entry = true;
      else if (r === Role.Recompute) facts.recompute = true;
      else if (r === Role.Engine) facts.engine = true;
      if (facts.entry && facts.callSite < 0 && kind === FrameKind.User) facts.callSite = f;
      if (!facts.nodeName && kind === FrameKind.Cpp) facts.nodeName = node(f);
    }
    cache.set(stack, facts);
    return facts;
  };
}
