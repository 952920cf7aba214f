import type { Snapshot } from '../snapshot/model';
import { plumbingGroup } from './plumbing';
import { FrameKind } from './userCode';
import type { FrameClassifier } from './userCode';

const MAX_DEPTH = 512;

/** A stack reduced to what the tree shows, outermost first: kept frames, with the plumbing folded before each. */
export interface Path {
  frames: number[];
  /** The plumbing folded before each kept frame; absent while none is (most stacks: no array per frame). */
  folds?: (string[] | undefined)[];
  /** Plumbing after the last kept frame. */
  tail: string[];
  /** Index in `frames` of the innermost user frame, or -1. */
  self: number;
  /** Index in `frames` of the innermost `forward` (the module running when the block was made), or -1. */
  module: number;
  python: boolean;
}

/** Stacks reduced to paths, each stack once; frames' plumbing groups, each frame once. */
export class StackPaths {
  private readonly paths: (Path | undefined)[] = [];
  private readonly groups = new Map<number, string | undefined>();

  constructor(
    private readonly s: Snapshot,
    private readonly cls: FrameClassifier,
  ) {}

  /** The plumbing group of a library frame, or undefined for code that is kept. */
  readonly groupOf = (f: number): string | undefined => {
    if (!this.groups.has(f)) this.groups.set(f, plumbingGroup(this.s.frames.fileOf(f), this.s.frames.nameOf(f)));
    return this.groups.get(f);
  };

  of(stack: number): Path {
    const hit = this.paths[stack];
    if (hit) return hit;
    const { s, cls, groupOf } = this;
    const p: Path = { frames: [], tail: [], self: -1, module: -1, python: false };
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
      if (pending.length) (p.folds ??= [])[p.frames.length] = pending;
      p.frames.push(f);
      pending = [];
    }
    p.tail = pending;
    this.paths[stack] = p;
    return p;
  }
}
