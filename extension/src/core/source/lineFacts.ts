import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';

export interface StackFrame {
  file: string;
  line: number;
  name: string;
  user: boolean;
}

/**
 * A block's stack, innermost first. Runs of library frames are collapsed to a count, unless
 * `library` asks for them: then Python library frames (torch, transformers, site-packages) are
 * listed with `user: false`, and only C++ frames stay counted.
 */
export function stackOf(s: Snapshot, a: DeviceAnalysis, element: number, library = false): (StackFrame | { collapsed: number })[] {
  const out: (StackFrame | { collapsed: number })[] = [];
  let hidden = 0;
  for (const f of s.stacks.get(a.replay.elements.stack[element]!)) {
    const kind = a.classifier.kind(f);
    if (kind === FrameKind.User || (library && kind !== FrameKind.Cpp)) {
      if (hidden) out.push({ collapsed: hidden });
      hidden = 0;
      out.push({ file: s.frames.fileOf(f), line: s.frames.lineOf(f), name: s.frames.nameOf(f), user: kind === FrameKind.User });
    } else hidden++;
  }
  if (hidden) out.push({ collapsed: hidden });
  return out;
}

/**
 * What a line allocated over the whole trace: allocations whose innermost user frame is the line
 * (count and requested bytes), whether or not they are live at the instant shown.
 */
export function lineHistory(s: Snapshot, a: DeviceAnalysis, file: string, line: number): { count: number; bytes: number } {
  const selfOf = new Map<number, boolean>();
  const e = a.replay.elements;
  let count = 0;
  let bytes = 0;
  for (let k = 0; k < e.count; k++) {
    if (e.alloc[k]! < 0) continue;
    const st = e.stack[k]!;
    let hit = selfOf.get(st);
    if (hit === undefined) {
      hit = false;
      for (const f of s.stacks.get(st)) {
        if (a.classifier.kind(f) !== FrameKind.User) continue;
        hit = s.frames.lineOf(f) === line && s.frames.fileOf(f) === file;
        break;
      }
      selfOf.set(st, hit);
    }
    if (hit) {
      count++;
      bytes += e.size[k]!;
    }
  }
  return { count, bytes };
}
