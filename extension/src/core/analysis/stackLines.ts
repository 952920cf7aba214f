import type { Snapshot } from '../snapshot/model';
import { FrameKind } from './userCode';
import type { FrameClassifier } from './userCode';

/** What a stack says to the line attribution. */
export interface StackLines<L> {
  /** The innermost user line, if any. */
  self: L | undefined;
  /** Whether it has Python frames (library code only, when no user line). */
  python: boolean;
  /** Its distinct user lines, each counted once for inclusive bytes. */
  lines: L[];
}

/**
 * A stack's facts, computed once per distinct stack: a hostile snapshot shares one 5-million-frame
 * stack among thousands of blocks, and real ones share stacks among all the iterations of a loop.
 */
export function stackLines<L>(s: Snapshot, cls: FrameClassifier, lineOf: (frame: number) => L): (stack: number) => StackLines<L> {
  const perStack = new Map<number, StackLines<L>>();
  return (id) => {
    let facts = perStack.get(id);
    if (facts) return facts;
    const distinct = new Set<L>();
    let self: L | undefined;
    let python = false;
    const frames = s.stacks.get(id);
    for (let j = 0; j < frames.length; j++) {
      const f = frames[j]!;
      const kind = cls.kind(f);
      if (kind === FrameKind.Cpp) continue;
      python = true;
      if (kind !== FrameKind.User) continue;
      const st = lineOf(f);
      if (!self) self = st;
      distinct.add(st);
    }
    facts = { self, python, lines: [...distinct] };
    perStack.set(id, facts);
    return facts;
  };
}
